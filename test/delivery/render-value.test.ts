// Tests for delivery/render-value.ts: one stored property value as JSON text: Long/Double/Decimal →
// number, Boolean → boolean, Date → ISO string, multi-value → array of strings, Binary → left out.
import { describe, expect, it } from 'vitest';
import { encodeValue } from '../../src/delivery/render-value.js';
import { PROPERTY_TYPES, type PropertyType } from '../../src/model/property-type.js';

/** Encodes and checks the text is valid JSON on its own and inside an object. */
function json(type: PropertyType, value: Parameters<typeof encodeValue>[1]): string {
  const text = encodeValue(type, value);
  if (text === undefined) throw new Error(`${type} ${String(value)} was left out`);
  expect(() => JSON.parse(`{"v":${text}}`)).not.toThrow();
  return text;
}

describe('encodeValue: numbers', () => {
  it('writes Long as a JSON number', () => {
    expect(json('Long', 42)).toBe('42');
    expect(json('Long', -7)).toBe('-7');
    expect(json('Long', 0)).toBe('0');
    expect(json('Long', Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
  });

  it('writes Double as a JSON number', () => {
    expect(json('Double', 0.5)).toBe('0.5');
    expect(json('Double', -1.25)).toBe('-1.25');
    expect(json('Double', 1e21)).toBe('1e+21');
    expect(JSON.parse(json('Double', 1e-7))).toBe(1e-7);
  });

  it('writes NaN and infinities as strings', () => {
    expect(json('Double', NaN)).toBe('"NaN"');
    expect(json('Double', Infinity)).toBe('"Infinity"');
    expect(json('Double', -Infinity)).toBe('"-Infinity"');
    expect(json('Long', NaN)).toBe('"NaN"');
  });

  it('writes numbers stored as text as numbers when they are JSON numbers', () => {
    expect(json('Long', '12')).toBe('12');
    expect(json('Double', '-3.5')).toBe('-3.5');
    expect(json('Double', '2.5E-3')).toBe('2.5E-3');
    expect(json('Double', 'NaN')).toBe('"NaN"');
    expect(json('Long', 'abc')).toBe('"abc"');
    expect(json('Long', '007')).toBe('"007"');
  });

  it('writes Decimal text as a JSON number, keeping every digit', () => {
    expect(json('Decimal', '3.14')).toBe('3.14');
    expect(json('Decimal', '-0.5')).toBe('-0.5');
    expect(json('Decimal', '0')).toBe('0');
    expect(json('Decimal', '12345678901234567890.123456789')).toBe('12345678901234567890.123456789');
    expect(json('Decimal', '1e5')).toBe('1e5');
    expect(json('Decimal', 7)).toBe('7');
  });

  it('writes Decimal text that is not a JSON number as a string', () => {
    expect(json('Decimal', '.5')).toBe('".5"');
    expect(json('Decimal', '1.')).toBe('"1."');
    expect(json('Decimal', '+1')).toBe('"+1"');
    expect(json('Decimal', '01')).toBe('"01"');
    expect(json('Decimal', 'NaN')).toBe('"NaN"');
    expect(json('Decimal', '1 000')).toBe('"1 000"');
    expect(json('Decimal', '')).toBe('""');
  });
});

describe('encodeValue: other scalars', () => {
  it('writes Boolean as true or false', () => {
    expect(json('Boolean', true)).toBe('true');
    expect(json('Boolean', false)).toBe('false');
    expect(json('Boolean', 'true')).toBe('true');
    expect(json('Boolean', 'false')).toBe('false');
  });

  it('writes Date as its ISO 8601 string', () => {
    expect(json('Date', '2024-05-01T10:00:00.000+02:00')).toBe('"2024-05-01T10:00:00.000+02:00"');
    expect(json('Date', '2020-02-01T13:45:49.952Z')).toBe('"2020-02-01T13:45:49.952Z"');
  });

  it('writes String and the reference-like types as strings', () => {
    for (const type of ['String', 'Reference', 'WeakReference', 'Name', 'Path', 'URI'] as const) {
      expect(json(type, 'a-b/c')).toBe('"a-b/c"');
    }
    expect(json('String', '')).toBe('""');
    expect(json('String', '42')).toBe('"42"'); // a String that looks like a number stays a string
    expect(json('String', 'true')).toBe('"true"');
  });

  it('leaves Binary out', () => {
    expect(encodeValue('Binary', 'sha256-abc')).toBeUndefined();
    expect(encodeValue('Binary', ['h1', 'h2'])).toBeUndefined();
    expect(encodeValue('Binary', [])).toBeUndefined();
  });

  it('writes every type except Binary', () => {
    for (const type of PROPERTY_TYPES) {
      if (type === 'Binary') continue;
      expect(encodeValue(type, '1')).toBeDefined();
    }
  });
});

describe('encodeValue: multi-value', () => {
  it('writes an array of strings whatever the type', () => {
    expect(json('String', ['a', 'b'])).toBe('["a","b"]');
    expect(json('Long', [1, 2, -3])).toBe('["1","2","-3"]');
    expect(json('Double', [0.5, NaN])).toBe('["0.5","NaN"]');
    expect(json('Boolean', [true, false])).toBe('["true","false"]');
    expect(json('Date', ['2024-05-01T10:00:00.000+02:00'])).toBe('["2024-05-01T10:00:00.000+02:00"]');
    expect(json('Decimal', ['1.50'])).toBe('["1.50"]');
  });

  it('writes an empty multi-value property as []', () => {
    expect(json('String', [])).toBe('[]');
    expect(json('Long', [])).toBe('[]');
  });

  it('escapes each element', () => {
    const values = ['say "hi"', 'a\nb', '</script>', '\u2028'];
    expect(JSON.parse(json('String', values))).toEqual(values);
  });
});

describe('encodeValue: JSON escaping', () => {
  const SAMPLES = [
    'say "hello"',
    'back\\slash',
    'line one\nline two\r\nthree\ttab',
    'nul \u0000 and bell \u0007 and \u001f',
    'Grüße, 日本語, emoji 🌷',
    'separators \u2028 and \u2029',
    '</script><script>alert(1)</script>',
    '<!-- comment -->',
    'lone surrogate \ud800 here',
  ];

  it('round-trips every string through JSON.parse', () => {
    for (const s of SAMPLES) {
      const text = json('String', s);
      expect(JSON.parse(text)).toBe(s);
    }
  });

  it('escapes quotes, backslashes and control characters', () => {
    expect(json('String', 'say "hello"')).toBe('"say \\"hello\\""');
    expect(json('String', 'a\\b')).toBe('"a\\\\b"');
    expect(json('String', 'a\nb\rc\td')).toBe('"a\\nb\\rc\\td"');
    expect(json('String', '\u0000')).toBe('"\\u0000"');
  });

  it('leaves no raw control character or lone surrogate in the output', () => {
    for (const s of SAMPLES) {
      const text = json('String', s);
      expect(text).not.toMatch(/[\u0000-\u001f]/);
      expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });

  it('keeps non-ASCII text as it is', () => {
    expect(json('String', 'Grüße 🌷')).toBe('"Grüße 🌷"');
  });

  it('escapes strings in Date and non-number Long values too', () => {
    expect(JSON.parse(json('Date', 'x"</script>\n'))).toBe('x"</script>\n');
    expect(JSON.parse(json('Long', 'x"\n'))).toBe('x"\n');
    expect(JSON.parse(json('Decimal', '"1"'))).toBe('"1"');
  });
});
