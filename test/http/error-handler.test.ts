// The one mapping of domain errors to the error table (http/error-handler.ts): every reason of a refused
// node write has a code of the table, and each domain error reaches a client as that code's status and
// JSON body, whichever route let it propagate.
import { describe, expect, it } from 'vitest';
import { ERRORS, PetalError, type ErrorCode } from '../../src/errors.js';
import { NODE_WRITE_CODES, petalErrorOf } from '../../src/http/error-handler.js';
import { ImportError } from '../../src/ingest/import-error.js';
import { ImportConflictError, InvalidDocumentError } from '../../src/ingest/run-import.js';
import { RateLimited } from '../../src/shop/rate-limit.js';
import { NodeWriteError, type NodeWriteReason } from '../../src/repository/node-write.js';
import { errorAnswer } from '../helpers/error-answer.js';

const answer = errorAnswer;

describe('domain errors → the error table', () => {
  it('maps every reason of a refused node write to a code of the table', () => {
    const reasons = Object.keys(NODE_WRITE_CODES) as NodeWriteReason[];
    expect(reasons.sort()).toEqual(['denied', 'exists', 'identifierInUse', 'invalid', 'missing', 'parentNotPublished', 'stale']);
    for (const reason of reasons) {
      const code: ErrorCode = NODE_WRITE_CODES[reason];
      expect(ERRORS, reason).toHaveProperty(code);
      const mapped = petalErrorOf(new NodeWriteError(reason, `refused: ${reason}`));
      expect([mapped?.code, mapped?.status, mapped?.message]).toEqual([code, ERRORS[code].status, `refused: ${reason}`]);
    }
  });

  it('answers a refused node write with the status, body and headers of its code', async () => {
    for (const [reason, code] of Object.entries(NODE_WRITE_CODES)) {
      const r = await answer(new NodeWriteError(reason as NodeWriteReason, `No luck: ${reason}`));
      expect(r.status, reason).toBe(ERRORS[code].status);
      expect(r.body).toEqual({ error: { code, message: `No luck: ${reason}` } });
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('answers unreadable export files with 400 invalidImport and conflicts with 409 importConflict (public message only)', async () => {
    expect((await answer(new ImportError('website.a.yaml', 3, 'bad indentation'))).body)
      .toEqual({ error: { code: 'invalidImport', message: 'website.a.yaml:3: bad indentation' } });
    const invalid = await answer(new InvalidDocumentError('website.b.xml', 'a name the repository refuses'));
    expect([invalid.status, invalid.body]).toEqual([400, { error: { code: 'invalidImport', message: 'website.b.xml: a name the repository refuses' } }]);
    const conflict = await answer(new ImportConflictError('website.c.yaml', 'uuid 1 is held by /secret/page', 'uuid 1 cannot be used'));
    expect([conflict.status, conflict.body]).toEqual([409, { error: { code: 'importConflict', message: 'website.c.yaml: uuid 1 cannot be used' } }]);
  });

  it('keeps a PetalError as it is, and sends its Retry-After', async () => {
    const err = new PetalError('pathNotFound', 'No node at /x');
    expect(petalErrorOf(err)).toBe(err);
    const limited = await answer(new RateLimited(17, 'At most 3 carts created per minute'));
    expect([limited.status, limited.headers['retry-after'], limited.body])
      .toEqual([429, '17', { error: { code: 'tooManyRequests', message: 'At most 3 carts created per minute' } }]);
    expect((await answer(err)).headers['retry-after']).toBeUndefined();
  });

  it('leaves other errors to the 500 unknown', async () => {
    expect(petalErrorOf(new Error('bug'))).toBeUndefined();
    const r = await answer(new Error('bug'));
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('unknown');
  });
});
