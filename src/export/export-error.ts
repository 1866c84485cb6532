// Export layer: content that cannot be written in the chosen format, found while the export streams.

export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportError';
  }
}
