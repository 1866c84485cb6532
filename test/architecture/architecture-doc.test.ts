// Architecture: ARCHITECTURE.md stays true to the tree. Every file it names exists, its rule table maps
// each SPEC.md rule to files that exist, its layer table names every part of src/, and its error
// table agrees with src/errors.ts. A move or rename that forgets the page fails here, naming the paths.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERRORS, type ErrorCode } from '../../src/errors.js';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const DOC = readFileSync(resolve(REPO, 'ARCHITECTURE.md'), 'utf8');
const LINES = DOC.split('\n');

/** The lead's list of names still to fix after a merge; it must stay short. */
const TODO_MARK = 'TODO(lead)';
const MAX_TODOS = 8;

/** A repository file as the page writes it: `src/...`, `test/...` or `bench/...` with an extension. */
const FILE_PATH = /^(?:src|test|bench)\/[\w./-]*\.[a-z]+$/;
/** A folder of the repository as the page writes it: `src/store/`. */
const FOLDER_PATH = /^(?:src|test|bench)\/[\w./-]*\/$/;

/** The backticked spans of a piece of Markdown. */
function backticked(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
}

function exists(path: string): boolean {
  return existsSync(resolve(REPO, path));
}

/** The lines of the section whose heading starts with `heading`, up to the next heading of its level. */
function section(heading: string): string[] {
  const start = LINES.findIndex((l) => l.startsWith(heading));
  if (start < 0) throw new Error(`ARCHITECTURE.md has no section "${heading}"`);
  const level = heading.split(' ')[0]!;
  const end = LINES.findIndex((l, i) => i > start && l.startsWith(`${level} `));
  return LINES.slice(start + 1, end < 0 ? undefined : end);
}

/** The body rows of the first Markdown table in `lines`, as trimmed cells (`\|` is a pipe inside a cell). */
function tableRows(lines: readonly string[]): string[][] {
  const first = lines.findIndex((l) => l.startsWith('|'));
  if (first < 0) return [];
  const rows: string[][] = [];
  for (let i = first + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    rows.push(lines[i]!.slice(1, lines[i]!.lastIndexOf('|')).split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return rows;
}

describe('ARCHITECTURE.md', () => {
  it('names only files and folders that exist (except on the few lines marked TODO(lead))', () => {
    const missing: string[] = [];
    LINES.forEach((line, i) => {
      if (line.includes(TODO_MARK)) return;
      for (const span of backticked(line)) {
        if ((FILE_PATH.test(span) || FOLDER_PATH.test(span)) && !exists(span)) missing.push(`line ${i + 1}: ${span}`);
      }
    });
    expect(missing).toEqual([]);
  });

  it('keeps the TODO(lead) marks few', () => {
    expect(LINES.filter((l) => l.includes(TODO_MARK)).length).toBeLessThanOrEqual(MAX_TODOS);
  });

  it('maps at least 40 SPEC.md rules, each to at least one existing file', () => {
    const rows = tableRows(section('## 3.'));
    expect(rows.length).toBeGreaterThanOrEqual(40);
    const without = rows
      .filter((cells) => !backticked(cells[1] ?? '').some((s) => FILE_PATH.test(s) && exists(s)))
      .map((cells) => cells[0]);
    expect(without).toEqual([]);
  });

  it('places every top-level folder and file of src/ in the layers section', () => {
    const layers = section('## 1.').join('\n');
    const named = new Set(backticked(layers));
    const absent = readdirSync(resolve(REPO, 'src'), { withFileTypes: true })
      .map((e) => (e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`))
      .filter((p) => !named.has(p));
    expect(absent).toEqual([]);
  });

  it('lists every error code of src/errors.ts under its status', () => {
    const statusOf = new Map<string, number>();
    for (const [status, codes] of tableRows(section('## 6.'))) {
      for (const code of backticked(codes ?? '')) if (code in ERRORS) statusOf.set(code, Number(status));
    }
    const wrong = (Object.keys(ERRORS) as ErrorCode[])
      .filter((code) => statusOf.get(code) !== ERRORS[code].status)
      .map((code) => `${code} (${ERRORS[code].status})`);
    expect(wrong).toEqual([]);
  });
});
