// PostgreSQL backend: one batch of an import as one exchange with the server. A batch used to be five
// statements in turn (draw node ids, COPY nodes, COPY full text, kinds, types); node-postgres sends a
// statement only once it has handled the previous one's answer, on the main thread, which is parsing
// the next batch meanwhile: the server sat idle between statements (about 40 % of an import, while
// the main thread sat idle 40 % waiting for it). Here the statements go as one simple query and the
// COPY rows right behind it, before the server asks for them: it reads them from the socket when each
// COPY starts, and runs the whole batch without waiting for this process.
//
// On an error the server discards the rest of the query, answers ReadyForQuery and ignores the COPY
// data still coming (the protocol says so: "we probably got here because a COPY failed, and the
// frontend is still sending data"); the transaction is then aborted, as with any failed statement.
import type pg from 'pg';

/** CopyData ('d') header: the type byte and the message length (itself and the data). */
function copyDataHeader(bytes: number): Buffer {
  const head = Buffer.allocUnsafe(5);
  head[0] = 0x64;
  head.writeUInt32BE(bytes + 4, 1);
  return head;
}
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);

/** What pg hands a submitted query: the parts this statement uses. */
interface DataRowMessage { readonly fields: readonly (string | null)[] }

/**
 * `text`: statements separated by semicolons, with as many `COPY … FROM STDIN` as `copies`, in the
 * same order (each gets its buffer of rows in COPY's text format). Resolves with the first column of
 * every row the statements return, once the server has run them all; rejects with the first error.
 */
export class BatchStatement implements pg.Submittable {
  readonly text: string;
  readonly #copies: readonly Buffer[];
  readonly #values: (string | null)[] = [];
  #failed = false;
  #settle!: { resolve: (values: (string | null)[]) => void; reject: (err: Error) => void };
  readonly done: Promise<(string | null)[]>;

  constructor(text: string, copies: readonly Buffer[]) {
    this.text = text;
    this.#copies = copies;
    this.done = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
  }

  /** Runs it on the client (queued behind the client's earlier queries, as any query). */
  static run(client: pg.ClientBase, text: string, copies: readonly Buffer[]): Promise<(string | null)[]> {
    const statement = new BatchStatement(text, copies);
    client.query(statement);
    return statement.done;
  }

  submit(connection: pg.Connection): void {
    const socket = connection.stream;
    // Written together (one writev), not a small packet per message.
    socket.cork();
    connection.query(this.text);
    for (const rows of this.#copies) {
      if (rows.length > 0) {
        socket.write(copyDataHeader(rows.length));
        socket.write(rows);
      }
      socket.write(COPY_DONE);
    }
    socket.uncork();
  }

  // The callbacks pg calls on the active query (see pg's client.js), all of them, so none is missing.
  handleCopyInResponse(): void {}
  handleRowDescription(): void {}
  handleDataRow(msg: DataRowMessage): void {
    this.#values.push(msg.fields[0] ?? null);
  }
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  handleError(err: Error): void {
    this.#failed = true;
    this.#settle.reject(err);
  }

  handleReadyForQuery(): void {
    if (!this.#failed) this.#settle.resolve(this.#values);
  }

  /** pg replaces it with its own when a query timeout is set. */
  callback(): void {}
}
