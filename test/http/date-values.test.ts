// Issue 28 point 9, beyond publishing: a Date value written through the Nodes API is a day of the
// calendar with a real clock. Date.parse took 2030-02-30 as March 2, so such a value was stored as
// written and read back as another day; now it is refused with 400 naming the value (SQLite, and
// PostgreSQL with PETAL_TEST_PG).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, get, hashOf, req } from '../security-http/helpers.js';

const PW = 'date-values-password';
const API = '/.rest/nodes/v1/website';
const BOSS = { authorization: basic('boss', PW) };
const date = (value: string) => ({ name: 'when', type: 'Date', multiple: false, values: [value] });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    content: { 'website.travel.yaml': "'travel':\n  'jcr:primaryType': 'mgnl:page'\n" },
    security: { users: { boss: { passwordHash: await hashOf(PW), roles: ['superuser'] } } },
  });
});
afterAll(async () => t?.close());

describe('Date values of the Nodes API', () => {
  it.each([
    '2030-02-30T00:00:00.000+00:00', '2027-02-29', '2030-04-31T10:00:00Z', '2030-13-01T00:00:00Z',
    '2030-01-01T24:00:00Z', '2030-01-01T10:60:00Z', '2030-01-01T10:00:60Z',
  ])('refuses %s (400 naming the value), writing nothing', async (value) => {
    const name = `x${value.replace(/[^0-9]/g, '')}`;
    const res = await req(t.app, { method: 'PUT', url: `${API}/travel`, headers: BOSS, payload: { name, properties: [date(value)] } });
    expectErrorShape(res, 400, 'invalidValueFormat');
    expect(res.body.error.message).toContain('when (properties[0].values[0]):');
    expect((await get(t.app, `${API}/travel/${name}`, BOSS)).status).toBe(404);
  });

  it('takes a leap day, and keeps the day written', async () => {
    const res = await req(t.app, { method: 'PUT', url: `${API}/travel`, headers: BOSS, payload: { name: 'leap', properties: [date('2028-02-29T12:00:00+01:00')] } });
    expect(res.status, res.raw).toBe(200);
    const read = await get(t.app, `${API}/travel/leap`, BOSS);
    expect(read.body.properties.find((p: { name: string }) => p.name === 'when').values).toEqual(['2028-02-29T12:00:00.000+01:00']);
  });
});
