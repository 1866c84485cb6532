// checkQueryText: query parameters holding text no store keeps alike (U+0000, unpaired surrogates) are
// refused naming the parameter. Through HTTP only U+0000 can arrive (test/http/unstorable-text.test.ts):
// Node reads request targets as bytes, and invalid escapes such as %ED%A0%80 stay literal. Unpaired
// surrogates are checked here, for callers that hand the delivery layer a query of their own.
import { describe, expect, it } from 'vitest';
import { checkQueryText } from '../../src/delivery/parse-request.js';
import { PetalError } from '../../src/errors.js';

function refusal(query: Record<string, string | string[]>): { code: string; message: string } | undefined {
  try {
    checkQueryText(query);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(PetalError);
    return { code: (err as PetalError).code, message: (err as PetalError).message };
  }
}

describe('checkQueryText', () => {
  it('refuses U+0000 and unpaired surrogates in values, naming the parameter', () => {
    expect(refusal({ name: 'a\u0000b' })).toMatchObject({ code: 'badRequest', message: expect.stringMatching(/^name: /) });
    expect(refusal({ q: 'x\ud800' })).toMatchObject({ code: 'badRequest', message: expect.stringMatching(/^q: /) });
    expect(refusal({ orderBy: '\udc00name' })).toMatchObject({ code: 'badRequest', message: expect.stringMatching(/^orderBy: /) });
    expect(refusal({ lang: ['en', 'd\udbff'] })).toMatchObject({ code: 'badRequest', message: expect.stringMatching(/^lang: /) });
  });

  it('refuses them in names', () => {
    expect(refusal({ 'na\u0000me': 'x' })?.code).toBe('badRequest');
    expect(refusal({ 'x\ud800': '1' })?.code).toBe('badRequest');
  });

  it('lets everything else through: surrogate pairs, other control characters, empty values', () => {
    expect(refusal({ name: '🌹', q: 'a\tb', x: '', y: ['\ud83c\udf39', 'é'], 'é\ud83c\udf39': 'v' })).toBeUndefined();
  });
});
