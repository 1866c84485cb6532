// Test helper: one statement on its own connection to the PostgreSQL database of PETAL_TEST_PG (schema
// set-up and clean-up, and looking at tables the store keeps to itself).
import pg from 'pg';

export const PG_URL = process.env.PETAL_TEST_PG ?? '';

export async function pgRows<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}
