// Config layer: reading the YAML files Petal is configured with (petal.yaml, light modules, themes)
// within bounds, so that a damaged or hostile file is an error to report, not memory or time lost.
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { ConfigError } from './config-error.js';

/** Largest configuration or light-module YAML file (real ones are a few kB). */
export const MAX_YAML_FILE_BYTES = 4 * 1024 * 1024;
/**
 * Alias uses allowed when a document is turned into values, counted the way the `yaml` library
 * counts them (an alias of a collection counts its aliases again): nested aliases multiply.
 */
export const MAX_YAML_ALIASES = 100;

export class YamlFileTooLargeError extends Error {
  constructor(readonly size: number) {
    super(`the file is larger than ${MAX_YAML_FILE_BYTES} bytes (${size})`);
    this.name = 'YamlFileTooLargeError';
  }
}

/** The text of a YAML file, refusing one above MAX_YAML_FILE_BYTES before reading it. */
export function readYamlFileSync(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size > MAX_YAML_FILE_BYTES) throw new YamlFileTooLargeError(size);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

export async function readYamlFile(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > MAX_YAML_FILE_BYTES) throw new YamlFileTooLargeError(size);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** `doc.toJS()` with the alias bound stated, and the library's ReferenceError turned into a readable reason. */
export function yamlToJS(doc: Document): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    if (err instanceof ReferenceError) throw new Error(`aliases expand too much (more than ${MAX_YAML_ALIASES} alias uses): ${err.message}`);
    throw err;
  }
}

/** A configuration file's YAML: its document, its line counter and its values (an empty file is `{}`). */
export interface ParsedYaml {
  readonly doc: Document;
  readonly lines: LineCounter;
  readonly data: unknown;
}

/** `text` of `file` parsed and turned into values; the first YAML error (with its line) or too many alias uses are ConfigErrors. */
export function parseConfigYaml(file: string, text: string): ParsedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new ConfigError(file, e.message.split('\n')[0]!, lines.linePos(e.pos[0]).line);
  }
  let data: unknown;
  try {
    data = yamlToJS(doc) ?? {};
  } catch (err) {
    throw new ConfigError(file, err instanceof Error ? err.message : String(err));
  }
  return { doc, lines, data };
}
