// Ingest layer: the order a YAML export's errors are reported in, as the whole-document reader had
// them. A syntax error is thrown as soon as it is met (not kept here); of the rest, "more than one
// top-level key" (the document's shape) comes before the first content error, whatever their lines,
// and after a content error the reader stops telling the sink but reads on for syntax errors.
import { ImportError } from './import-error.js';

export class YamlFailures {
  #shape: ImportError | undefined;
  #content: ImportError | undefined;

  /** True once a shape or content error is kept: nothing more goes to the sink. */
  get failed(): boolean {
    return this.#shape !== undefined || this.#content !== undefined;
  }

  /** Keeps the first shape error. */
  shape(error: ImportError): void {
    this.#shape ??= error;
  }

  /** Keeps `err` as the content error when it is an ImportError; rethrows anything else. */
  content(err: unknown): void {
    if (!(err instanceof ImportError)) throw err;
    this.#content = err;
  }

  /** Throws the error to report at the end, if any. */
  throwFirst(): void {
    const failure = this.#shape ?? this.#content;
    if (failure) throw failure;
  }
}
