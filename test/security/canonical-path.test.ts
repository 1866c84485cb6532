// Security layer tests: canonicalPath against every path trick of the research (security.md §2, §5.9).
import { describe, expect, it } from 'vitest';
import { canonicalPath } from '../../src/security/canonical-path.js';

function ok(raw: string, ctx = ''): string {
  const r = canonicalPath(raw, ctx);
  if (!r.ok) throw new Error(`expected ok for ${raw}, got ${r.reason}`);
  return r.path;
}

function rejected(raw: string, ctx = ''): string {
  const r = canonicalPath(raw, ctx);
  if (r.ok) throw new Error(`expected rejection for ${raw}, got ${r.path}`);
  return r.reason;
}

describe('canonicalPath: plain paths', () => {
  it('keeps a canonical path as is and returns / for the root', () => {
    expect(ok('/.rest/delivery/pages/home')).toBe('/.rest/delivery/pages/home');
    expect(ok('/')).toBe('/');
  });

  it('drops query and fragment', () => {
    expect(ok('/.rest/delivery/pages?lang=de&x=/../y')).toBe('/.rest/delivery/pages');
    expect(ok('/a/b#frag/../c')).toBe('/a/b');
    expect(ok('/a#x?y')).toBe('/a');
    expect(ok('/a?')).toBe('/a');
  });

  it('requires a leading slash (origin-form)', () => {
    expect(rejected('')).toBe('path must start with /');
    expect(rejected('*')).toBe('path must start with /');
    expect(rejected('http://host/a')).toBe('path must start with /');
    expect(rejected('%2Fa')).toBe('path must start with /');
    expect(rejected('?/a')).toBe('path must start with /');
  });

  it('keeps a trailing slash (the router distinguishes /ep and /ep/)', () => {
    expect(ok('/.rest/ep/')).toBe('/.rest/ep/');
    expect(ok('/.rest/ep')).toBe('/.rest/ep');
    expect(ok('/.rest/ep//')).toBe('/.rest/ep/');
    expect(ok('/.rest/ep/.')).toBe('/.rest/ep/');
    expect(ok('/.rest/ep/?x=1')).toBe('/.rest/ep/');
  });

  it('decodes unicode names and mixed-case hex', () => {
    expect(ok('/caf%C3%A9/%e6%97%a5%E6%9C%AC')).toBe('/café/日本');
    expect(ok('/%F0%9F%8C%B8')).toBe('/🌸');
    expect(ok('/%41%62%63')).toBe('/Abc');
    expect(ok('/a%20b')).toBe('/a b');
    expect(ok('/café')).toBe('/café'); // raw non-ASCII (Node's parser refuses it on the wire anyway)
  });

  it('is case-sensitive (no case folding)', () => {
    expect(ok('/.REST/Delivery')).toBe('/.REST/Delivery');
  });
});

describe('canonicalPath: dot segments', () => {
  it('rejects a literal .. anywhere', () => {
    for (const raw of ['/..', '/../a', '/a/..', '/a/../b', '/a/b/../../c', '/a/../', '/.rest/delivery/../nodes/v1']) {
      expect(rejected(raw)).toBe('dot-dot segment');
    }
  });

  it('rejects encoded .. in every spelling', () => {
    for (const raw of ['/a/%2e%2e/b', '/a/%2E%2E/b', '/a/.%2e/b', '/a/%2e./b', '/a/%2E./b', '/a/.%2E', '/%2e%2e']) {
      expect(rejected(raw)).toBe('dot-dot segment');
    }
  });

  it('treats an encoded slash as a separator, so %2F.. is still ..', () => {
    expect(rejected('/a%2F..%2Fb')).toBe('dot-dot segment');
    expect(rejected('/a/b%2F..')).toBe('dot-dot segment');
    expect(rejected('/a%2f%2e%2e%2fb')).toBe('dot-dot segment');
  });

  it('drops . segments, literal or encoded', () => {
    expect(ok('/a/./b')).toBe('/a/b');
    expect(ok('/./a')).toBe('/a');
    expect(ok('/a/%2e/b')).toBe('/a/b');
    expect(ok('/a/%2E/b')).toBe('/a/b');
    expect(ok('/.')).toBe('/');
  });

  it('keeps names that merely contain dots', () => {
    expect(ok('/a/.../b')).toBe('/a/.../b');
    expect(ok('/a/..b/c.')).toBe('/a/..b/c.');
    expect(ok('/.magnolia/x')).toBe('/.magnolia/x');
  });

  it('decodes once: a double-encoded dot-dot is a literal name, not a traversal', () => {
    expect(ok('/a/%252e%252e/b')).toBe('/a/%2e%2e/b');
  });
});

describe('canonicalPath: slashes and separators', () => {
  it('collapses repeated slashes', () => {
    expect(ok('//a')).toBe('/a');
    expect(ok('///bin///querybuilder.json')).toBe('/bin/querybuilder.json');
    expect(ok('//')).toBe('/');
    expect(ok('///')).toBe('/');
  });

  it('decodes %2F / %2f to a separator', () => {
    expect(ok('/a%2Fb')).toBe('/a/b');
    expect(ok('/a%2fb')).toBe('/a/b');
    expect(ok('/.rest%2Fdelivery%2Fpages')).toBe('/.rest/delivery/pages');
    expect(ok('/a%2F%2F%2Fb')).toBe('/a/b');
  });

  it('keeps ; as a literal character', () => {
    expect(ok('/a;jsessionid=x')).toBe('/a;jsessionid=x');
    expect(ok('/a;jsessionid=x/b')).toBe('/a;jsessionid=x/b');
    // The AEM trick `;x='a/b.css/c'`: the slash inside is an ordinary separator.
    expect(ok("/bin/querybuilder.json;x='a/b.css/c'")).toBe("/bin/querybuilder.json;x='a/b.css/c'");
    expect(ok('/a;x=%27a%2Fb%27')).toBe("/a;x='a/b'");
  });

  it('rejects dot segments carrying parameters (Tomcat ..;)', () => {
    expect(rejected('/a/..;/b')).toBe('dot segment with parameters');
    expect(rejected('/a/..;x=1/b')).toBe('dot segment with parameters');
    expect(rejected('/a/.;x/b')).toBe('dot segment with parameters');
    expect(rejected('/a/%2e%2e;/b')).toBe('dot segment with parameters');
  });

  it('rejects backslashes, raw or encoded', () => {
    expect(rejected('/a\\b')).toBe('backslash');
    expect(rejected('/a/..\\b')).toBe('backslash');
    expect(rejected('/a%5cb')).toBe('backslash');
    expect(rejected('/a%5C..%5Cb')).toBe('backslash');
  });
});

describe('canonicalPath: bad bytes', () => {
  it('rejects NUL and other control characters', () => {
    for (const raw of ['/a%00.css', '/a%00', '/a/%0a.css', '/a;%0aa.css', '/a%0d%0ab', '/a%09', '/a%7f', '/a%C2%85', '/a%C2%9F']) {
      expect(rejected(raw)).toBe('control character');
    }
    expect(rejected('/a\u0000b')).toBe('control character');
    expect(rejected('/a\nb')).toBe('control character');
  });

  it('rejects overlong UTF-8 encodings (decodeURIComponent throws on them)', () => {
    for (const raw of ['/a/%C0%AE%C0%AE/b', '/%C0%AE%C0%AE', '/a%C0%AFb', '/a/%E0%80%AE%E0%80%AE/b', '/%C1%9C', '/%F0%80%80%AF']) {
      expect(rejected(raw)).toBe('invalid percent-encoding or UTF-8');
    }
  });

  it('rejects surrogates, invalid bytes, truncated sequences and bad escapes', () => {
    for (const raw of [
      '/%ED%A0%80', // encoded high surrogate
      '/%ED%BF%BF', // encoded low surrogate
      '/%FF',
      '/%FE%FF',
      '/%80', // lone continuation byte
      '/%C3', // truncated sequence
      '/%C3%28', // invalid continuation byte
      '/%E2%82', // truncated 3-byte sequence
      '/%F4%90%80%80', // above U+10FFFF
      '/%', '/%2', '/%zz', '/%G0',
    ]) {
      expect(rejected(raw)).toBe('invalid percent-encoding or UTF-8');
    }
  });

  it('rejects lone surrogates given raw (not percent-encoded)', () => {
    expect(rejected('/a\ud800b')).toBe('invalid percent-encoding or UTF-8');
    expect(rejected('/a\udc00')).toBe('invalid percent-encoding or UTF-8');
    expect(ok('/a\ud83c\udf38')).toBe('/a🌸');
  });
});

describe('canonicalPath: context path', () => {
  it('passes everything through when no context path is configured', () => {
    expect(ok('/ctx/.rest/x', '')).toBe('/ctx/.rest/x');
    expect(ok('/', '')).toBe('/');
  });

  it('strips a configured context path', () => {
    expect(ok('/ctx/.rest/delivery/pages', '/ctx')).toBe('/.rest/delivery/pages');
    expect(ok('/ctx', '/ctx')).toBe('/');
    expect(ok('/ctx/', '/ctx')).toBe('/');
    expect(ok('/ctx/.rest/ep/', '/ctx')).toBe('/.rest/ep/');
    expect(ok('/ctx?x=1', '/ctx')).toBe('/');
  });

  it('checks the context path on the canonical form', () => {
    expect(ok('//ctx//.rest', '/ctx')).toBe('/.rest');
    expect(ok('/%63tx/.rest', '/ctx')).toBe('/.rest');
    expect(ok('/./ctx/a', '/ctx')).toBe('/a');
    expect(rejected('/ctx/../other', '/ctx')).toBe('dot-dot segment');
  });

  it('rejects paths outside the context path', () => {
    expect(rejected('/ctxfoo/.rest', '/ctx')).toBe('outside context path');
    expect(rejected('/ctxfoo', '/ctx')).toBe('outside context path');
    expect(rejected('/.rest/delivery', '/ctx')).toBe('outside context path');
    expect(rejected('/', '/ctx')).toBe('outside context path');
    expect(rejected('/CTX/a', '/ctx')).toBe('outside context path');
  });

  it('accepts multi-segment context paths and tolerates sloppy configuration', () => {
    expect(ok('/a/b/.rest', '/a/b')).toBe('/.rest');
    expect(rejected('/a/bc/.rest', '/a/b')).toBe('outside context path');
    expect(ok('/ctx/x', '/ctx/')).toBe('/x');
    expect(ok('/ctx/x', 'ctx')).toBe('/x');
    expect(ok('/x', '/')).toBe('/x');
  });
});
