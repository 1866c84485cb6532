// Child process of postgres-import-crash.test.ts: one large import into a PostgreSQL store, which the
// parent kills (SIGKILL) while the server is in the middle of one of the import's COPY statements.
//   argv: <url with application_name> <schema> <nodes>
import { PostgresStore } from '../../src/store/postgres/store.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

const [url, schema, count] = process.argv.slice(2) as [string, string, string];
const store = new PostgresStore({ url, schema });
await store.open();
const children = Array.from({ length: Number(count) }, (_, i) => draft(`n${i}`, {
  properties: [['title', 'String', `node ${i} river`], ['rank', 'Long', i], ['tags', 'String', ['a', 'b']]],
}));
await importDocuments(store, [document('tours', '/', [draft('big', {}, children)])], NEW);
// Not reached when the parent kills in time; the parent then fails, as the import committed.
process.stdout.write('committed\n');
await store.close();
