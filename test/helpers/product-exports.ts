// Test helper: product-shaped export files of any size, written as streams (a root folder holding
// folders of 1,000 products, each with the properties a shop's export carries), in the YAML bootstrap
// format and the JCR system view.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

export interface ProductExportOptions {
  readonly nodes: number;
  /** Deterministic uuids from this seed (the same file twice gives the same uuids). */
  readonly seed?: number;
}

function uuidOf(seed: number, i: number): string {
  const hex = ((seed * 1_000_003 + i) >>> 0).toString(16).padStart(8, '0');
  return `${hex}-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

/** Each node of the export, in document order: depth, name, uuid and (products) the index. */
function* nodesOf(total: number): Generator<{ depth: number; name: string; i: number; product: boolean }> {
  yield { depth: 0, name: 'products', i: 0, product: false };
  let made = 1;
  for (let f = 0; made < total; f++) {
    yield { depth: 1, name: `folder-${f}`, i: made++, product: false };
    for (let p = 0; p < 1_000 && made < total; p++) yield { depth: 2, name: `product-${f}-${p}`, i: made++, product: true };
  }
}

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function finish(out: WriteStream): Promise<void> {
  out.end();
  await once(out, 'finish');
}

export async function writeProductsYaml(file: string, options: ProductExportOptions): Promise<void> {
  const out = createWriteStream(file);
  const seed = options.seed ?? 1;
  for (const n of nodesOf(options.nodes)) {
    const pad = '  '.repeat(n.depth);
    let text = `${pad}${n.name}:\n${pad}  'jcr:primaryType': ${n.product ? 'mgnl:content' : 'mgnl:folder'}\n${pad}  'jcr:uuid': ${uuidOf(seed, n.i)}\n`;
    if (n.product) {
      text += `${pad}  title: Product ${n.i}\n${pad}  price: ${(n.i % 997) + 0.25}\n${pad}  stock: ${n.i % 50}\n`
        + `${pad}  available: ${n.i % 2 === 0}\n${pad}  description: 'A product with words to find, number ${n.i}.'\n`
        + `${pad}  tags:\n${pad}    - red\n${pad}    - sale\n${pad}  'mgnl:created': 2024-01-02T03:04:05.000Z\n`;
    }
    await write(out, text);
  }
  await finish(out);
}

const property = (name: string, type: string, values: readonly string[], multiple = false): string =>
  `<sv:property sv:name="${name}" sv:type="${type}"${multiple ? ' sv:multiple="true"' : ''}>${values.map((v) => `<sv:value>${v}</sv:value>`).join('')}</sv:property>\n`;

export async function writeProductsXml(file: string, options: ProductExportOptions): Promise<void> {
  const out = createWriteStream(file);
  const seed = options.seed ?? 1;
  await write(out, '<?xml version="1.0" encoding="UTF-8"?>\n');
  let depth = -1;
  for (const n of nodesOf(options.nodes)) {
    while (depth >= n.depth) {
      await write(out, '</sv:node>\n');
      depth--;
    }
    let text = `<sv:node sv:name="${n.name}"${n.depth === 0 ? ' xmlns:sv="http://www.jcp.org/jcr/sv/1.0"' : ''}>\n`
      + property('jcr:primaryType', 'Name', [n.product ? 'mgnl:content' : 'mgnl:folder'])
      + property('jcr:uuid', 'String', [uuidOf(seed, n.i)]);
    if (n.product) {
      text += property('title', 'String', [`Product ${n.i}`]) + property('price', 'Double', [String((n.i % 997) + 0.25)])
        + property('stock', 'Long', [String(n.i % 50)]) + property('available', 'Boolean', [String(n.i % 2 === 0)])
        + property('description', 'String', [`A product with words to find, number ${n.i}.`])
        + property('tags', 'String', ['red', 'sale'], true) + property('mgnl:created', 'Date', ['2024-01-02T03:04:05.000Z']);
    }
    await write(out, text);
    depth = n.depth;
  }
  while (depth-- >= 0) await write(out, '</sv:node>\n');
  await finish(out);
}
