// Test helper of the GraphQL tests: the books-and-authors light module and content of
// test/fixtures/graphql, and who may read what of it.
import { join } from 'node:path';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'graphql');

const read = (path: string) => ({ path, permission: 'read' });
const deny = (path: string) => ({ path, permission: 'deny' });

/** Anonymous reads books and authors except a secret folder of each, and the dam. */
export const BOOKCASE_SECURITY = {
  roles: {
    'rest-anonymous': { uriPermissions: [{ path: '/.graphql', permission: 'getAndPost' }] },
    anonymous: {
      uriPermissions: [],
      workspacePermissions: {
        books: [read('/'), read('/*'), deny('/My-Good-Reads/Secret'), deny('/My-Good-Reads/Secret/*')],
        authors: [read('/'), read('/*'), deny('/private'), deny('/private/*')],
        dam: [read('/'), read('/*')],
      },
    },
  },
};

