// Config layer: the security folder's YAML files read within the bounds of every configuration file, and
// their problems (YAML, schema, `__proto__` keys) reported as ConfigErrors naming file, key and line.
import { readFileSync } from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from './config-error.js';
import { parseConfigYaml, readYamlFileSync, YamlFileTooLargeError } from './yaml-file.js';

export function readDoc(file: string): { doc: Document; lines: LineCounter } | undefined {
  try {
    const lines = new LineCounter();
    return { doc: parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines, prettyErrors: false }), lines };
  } catch {
    return undefined;
  }
}

/**
 * A security-folder YAML file as values, within the bounds of every configuration file (size, alias
 * uses); YAML errors, bounds and `__proto__` keys are ConfigErrors naming the file (and line).
 */
export function readSecurityYaml(file: string): { data: unknown; doc: Document; lines: LineCounter } {
  let text: string;
  try {
    text = readYamlFileSync(file);
  } catch (err) {
    if (err instanceof YamlFileTooLargeError) throw new ConfigError(file, err.message);
    throw err;
  }
  const { doc, lines, data } = parseConfigYaml(file, text);
  refuseProtoKeys(data, file, []);
  return { data, doc, lines };
}

/** zod silently drops `__proto__` keys from records: a user or role so named would vanish without a word. */
export function refuseProtoKeys(value: unknown, file: string | undefined, path: readonly string[]): void {
  if (typeof value !== 'object' || value === null) return;
  for (const key of Object.keys(value)) {
    if (key === '__proto__') throw new ConfigError(file, `${[...path, key].join('.')}: reserved name`);
    refuseProtoKeys((value as Record<string, unknown>)[key], file, [...path, key]);
  }
}

/** The first zod issue as a ConfigError with its dotted path and, when the document is known, its line. */
export function zodError(error: z.ZodError, file: string | undefined, prefix: readonly string[], source?: { doc: Document; lines: LineCounter }): ConfigError {
  const issue = error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const path = [...prefix, ...issue.path.map(String)];
  const where = path.length > 0 ? `${path.join('.')}: ` : '';
  const reason = keys.length > 0 ? `unknown key(s) ${keys.join(', ')}`
    // A bad record key (a user, group, role or workspace name): give the rule it broke, not just "invalid key".
    : issue.code === 'invalid_key' && issue.issues.length > 0 ? `invalid name: ${issue.issues[0]!.message}`
    : issue.message;
  const range = source ? rangeOf(source.doc, keys.length > 0 ? [...path, keys[0]!] : path) : undefined;
  return new ConfigError(file, `${where}${reason}`, range !== undefined ? source!.lines.linePos(range).line : undefined);
}

/** Offset of the key (or value) at `path`, walking up to the nearest ancestor that exists. */
function rangeOf(doc: Document, path: readonly string[]): number | undefined {
  for (let depth = path.length; depth > 0; depth--) {
    const keyPath = path.slice(0, depth);
    const parent = depth > 1 ? doc.getIn(keyPath.slice(0, -1), true) : doc.contents;
    if (isMap(parent)) {
      for (const pair of parent.items) {
        if (isScalar(pair.key) && String(pair.key.value) === keyPath[depth - 1] && pair.key.range) return pair.key.range[0];
      }
    }
    const node = doc.getIn(keyPath, true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return node.range[0];
  }
  return undefined;
}
