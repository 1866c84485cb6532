// The error table and the README's error table must agree in both directions (codes and statuses).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ERRORS, PetalError, type ErrorCode } from '../src/errors.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

function documented(): Map<string, number> {
  const section = README.slice(README.indexOf('### Errors'));
  const rows = new Map<string, number>();
  for (const m of section.matchAll(/^\| (\d{3}) \| `(\w+)` \|/gm)) rows.set(m[2]!, Number(m[1]));
  return rows;
}

describe('error table', () => {
  it('documents every code with its status, and documents nothing else', () => {
    const docs = documented();
    const table = new Map(Object.entries(ERRORS).map(([code, e]) => [code, e.status]));
    expect(Object.fromEntries(docs)).toEqual(Object.fromEntries(table));
  });

  it('builds PetalError with the status of its code and a default message', () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      const err = new PetalError(code);
      expect(err.status).toBe(ERRORS[code].status);
      expect(err.message).toBe(ERRORS[code].message);
    }
    expect(new PetalError('pathNotFound', '/x').message).toBe('/x');
  });
});
