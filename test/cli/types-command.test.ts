// `petal types` (issue 19): the demo's public endpoints as TypeScript types that a client compiles
// against, with a Query nodes result typed (not `any`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { main } from '../../src/cli.js';

const DEMO_CONFIG = join(import.meta.dirname, '..', '..', 'demo', 'petal.yaml');

const CLIENT = `import type { paths } from './petal-types.js';

type Plants = paths['/.rest/delivery/plants/v2']['get'];
type QueryResult = Plants['responses'][200]['content']['application/json'];

export function firstName(r: QueryResult): string | undefined {
  const total: number = r.total;
  return total > 0 ? r.results[0]?.['@name'] : undefined;
}
export const query: NonNullable<Plants['parameters']['query']> = { q: 'rose', limit: 5 };
// @ts-expect-error total is a number: this line compiles only if the result is typed
export const wrong: string = ({} as QueryResult).total;
`;

function compile(dir: string): string[] {
  const program = ts.createProgram([join(dir, 'client.ts')], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('petal types', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'h-openapi-types-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the public endpoints\' types, and a client using a Query nodes result compiles against them', async () => {
    const out = join(dir, 'petal-types.ts');
    expect(await main(['types', '--config', DEMO_CONFIG, '--out', out])).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('"/.rest/delivery/plants/v2"');
    expect(text).not.toContain('/.rest/private/'); // the public view: stock needs a role
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    expect(compile(dir)).toEqual([]);
  }, 180_000);

  it('a client misusing the result does not compile', () => {
    writeFileSync(join(dir, 'client.ts'), `${CLIENT}\nexport const bad: string = ({} as Parameters<typeof firstName>[0]).results;\n`);
    expect(compile(dir).join('\n')).toMatch(/not assignable to type 'string'/);
  }, 180_000);
});
