// Test and bench helper: writes product-shaped YAML bootstrap exports (as Magnolia writes them: quoted
// keys and strings, plain dates and numbers, flow sequences) of any size, piece by piece.

const WORDS = ['river', 'mountain', 'temple', 'market', 'island', 'desert', 'forest', 'harbour', 'valley', 'castle',
  'glacier', 'canyon', 'village', 'lagoon', 'volcano', 'garden', 'museum', 'bridge', 'safari', 'festival'];
const TAGS = ['active', 'beach', 'culture', 'family', 'eco', 'food', 'history', 'nature', 'city', 'adventure'];

/** Deterministic pseudo-random numbers, so every run writes the same file. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** A UUID made from a number, so a file names the same ids on every run. */
export function fakeUuid(n: number): string {
  const hex = n.toString(16).padStart(12, '0');
  return `0000${hex.slice(0, 4)}-1111-4222-8333-${hex.slice(-12)}`;
}

function pick<T>(list: readonly T[], rand: () => number): T {
  return list[Math.floor(rand() * list.length)]!;
}

function date(rand: () => number): string {
  const day = 1 + Math.floor(rand() * 28);
  const ms = Math.floor(rand() * 1000).toString().padStart(3, '0');
  return `2023-0${1 + Math.floor(rand() * 9)}-${String(day).padStart(2, '0')}T10:${String(Math.floor(rand() * 60)).padStart(2, '0')}:15.${ms}+01:00`;
}

/**
 * The text of a products export: a root folder holding folders of `perFolder` products. Yields it in
 * pieces of about a folder (never the whole file), so a file of millions of nodes can be written.
 * Nodes = 1 + folders + products.
 */
export function* productExport(products: number, perFolder = 1000, seed = 42): Generator<string> {
  const rand = rng(seed);
  yield `'products':\n  'jcr:primaryType': 'mgnl:folder'\n  'jcr:uuid': '${fakeUuid(0)}'\n  'mgnl:created': ${date(rand)}\n`;
  let id = 1;
  for (let folder = 0; folder * perFolder < products; folder++) {
    const lines: string[] = [
      `  'folder-${folder}':`,
      `    'jcr:primaryType': 'mgnl:folder'`,
      `    'jcr:uuid': '${fakeUuid(id++)}'`,
      `    'mgnl:created': ${date(rand)}`,
    ];
    const end = Math.min(products, (folder + 1) * perFolder);
    for (let i = folder * perFolder; i < end; i++) {
      const w1 = pick(WORDS, rand);
      const w2 = pick(WORDS, rand);
      const tags = [pick(TAGS, rand), pick(TAGS, rand)].map((t) => `'${t}'`).join(', ');
      lines.push(
        `    'product-${i}':`,
        `      'jcr:primaryType': 'mgnl:product'`,
        `      'jcr:uuid': '${fakeUuid(id++)}'`,
        `      'available': ${rand() < 0.8 ? 'true' : 'false'}`,
        `      'description': 'A ${w1} trip to the ${w2}: ${WORDS.length + i} days of guided walks, local food and the ''best'' views.'`,
        `      'mgnl:created': ${date(rand)}`,
        `      'mgnl:createdBy': 'superuser'`,
        `      'mgnl:lastModified': ${date(rand)}`,
        `      'price': ${(10 + rand() * 990).toFixed(2)}`,
        `      'sku': 'SKU-${String(i).padStart(8, '0')}'`,
        `      'stock': ${Math.floor(rand() * 500)}`,
        `      'tags': [${tags}]`,
        `      'title': '${w1[0]!.toUpperCase()}${w1.slice(1)} ${w2} ${i}'`,
      );
    }
    yield `${lines.join('\n')}\n`;
  }
}

/** The whole text of a products export (small files, for tests). */
export function productExportText(products: number, perFolder = 1000, seed = 42): string {
  return [...productExport(products, perFolder, seed)].join('');
}
