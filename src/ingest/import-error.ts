// Ingest layer: the one error type of content-export parsing, located by file and line for the user.

export class ImportError extends Error {
  readonly file: string;
  readonly line?: number;
  readonly reason: string;

  constructor(file: string, line: number | undefined, reason: string, options?: { cause?: unknown }) {
    super(line === undefined ? `${file}: ${reason}` : `${file}:${line}: ${reason}`, options);
    this.name = 'ImportError';
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}

/** Wraps anything thrown while reading `file` (I/O errors, bugs in input) so callers see one error type. */
export function toImportError(file: string, err: unknown, line?: number): ImportError {
  if (err instanceof ImportError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new ImportError(file, line, reason, { cause: err });
}
