// HTTP layer: the one parser of JSON request bodies (application/json and application/*+json) for
// every route. After the route's byte limit (bodyLimit), a linear scan refuses a body past the route's
// limits of depth, values and keys, and string length (json-scan.ts) before JSON.parse builds anything:
// Fastify's own parser went straight to JSON.parse, and 3 million nested arrays held the main thread
// for seconds. Then it keeps what Fastify's parser (secure-json-parse, its defaults) refused: a
// `__proto__` key, or a `constructor` object with a `prototype` key, anywhere in the body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PetalError } from '../errors.js';
import { limitMessage, scanJson, type JsonBodyLimits } from './json-scan.js';
import { JSON_BODY_LIMITS } from './limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's JSON body limits (JSON_BODY_LIMITS when absent). */
    jsonBody?: JsonBodyLimits;
  }
}

/** Structured syntax suffix `+json` (RFC 6839): `application/merge-patch+json`, `application/vnd.api+json`. */
const PLUS_JSON = /^application\/[\w.!#$&^-]+\+json(?:;|$)/;
// secure-json-parse's own tests of the text: only a body that may hold such a key is walked.
const SUSPECT_PROTO = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR = /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

/** True when a parsed body holds a `__proto__` key or a `constructor` object with a `prototype` key. */
function poisoned(root: object): boolean {
  let level: object[] = [root];
  while (level.length > 0) {
    const next: object[] = [];
    for (const node of level) {
      if (Object.hasOwn(node, '__proto__')) return true;
      const ctor: unknown = Object.hasOwn(node, 'constructor') ? (node as { constructor: unknown }).constructor : undefined;
      if (typeof ctor === 'object' && ctor !== null && Object.hasOwn(ctor, 'prototype')) return true;
      for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) next.push(value as object);
    }
    level = next;
  }
  return false;
}

/** The body's value, or a PetalError: 400 (empty, malformed, too deep, a prototype key), 413 (too many values, a string too long). */
export function parseJsonBody(raw: string, limits: JsonBodyLimits): unknown {
  if (raw.length === 0) throw new PetalError('badRequest', 'body: empty, but Content-Type says JSON');
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw; // a BOM, as Fastify's parser allowed
  const hit = scanJson(text, limits);
  if (hit !== undefined) throw new PetalError(hit === 'depth' ? 'badRequest' : 'payloadTooLarge', limitMessage(hit, limits));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PetalError('badRequest', 'body: not valid JSON');
  }
  if (typeof value === 'object' && value !== null && (SUSPECT_PROTO.test(text) || SUSPECT_CONSTRUCTOR.test(text)) && poisoned(value)) {
    throw new PetalError('badRequest', 'body: a "__proto__" key, or a "constructor" holding "prototype", is not allowed');
  }
  return value;
}

/** Replaces Fastify's JSON parser on `app` (before any plugin scope is registered: scopes copy parsers). */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parser = (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void => {
    let value: unknown;
    try {
      value = parseJsonBody(body as string, request.routeOptions.config.jsonBody ?? JSON_BODY_LIMITS);
    } catch (err) {
      done(err as Error);
      return;
    }
    done(null, value);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parser);
  app.addContentTypeParser(PLUS_JSON, { parseAs: 'string' }, parser);
}
