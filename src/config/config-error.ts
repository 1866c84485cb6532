// Config layer: a start-up problem in a configuration file, with file, line and reason (not an HTTP error).

export class ConfigError extends Error {
  constructor(readonly file: string | undefined, readonly reason: string, readonly line?: number) {
    super(`${file ?? 'configuration'}${line !== undefined ? `:${line}` : ''}: ${reason}`);
    this.name = 'ConfigError';
  }
}
