// Image transforms of a 2 MB JPEG (3000 × 2000, generated) to WebP and AVIF at 960 px wide, through a
// real listening `petal serve`: the first rendition (cache emptied before each round) and the cached
// one, several rounds, medians. Usage: node --import tsx bench/renditions.ts [--rounds 5]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { assetFolderXml } from '../test/assets/asset-xml.js';
import { budget } from './smoke.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 5);
const ID = 'c0000000-0000-4000-8000-000000000001';
const WIDTH = budget(3000, 1200);
const HEIGHT = budget(2000, 800);

/** Gradients with grain, like a photograph: about 2 MB as a JPEG at quality 90 (checked below). */
async function photo(): Promise<Buffer> {
  const raw = Buffer.alloc(WIDTH * HEIGHT * 3);
  let seed = 42;
  const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 41) - 20;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 3;
      const wave = 40 * Math.sin(x / 90) * Math.cos(y / 70);
      raw[i] = Math.max(0, Math.min(255, (x * 255) / WIDTH + wave + noise()));
      raw[i + 1] = Math.max(0, Math.min(255, (y * 255) / HEIGHT - wave + noise()));
      raw[i + 2] = Math.max(0, Math.min(255, 128 + wave + noise()));
    }
  }
  return sharp(raw, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const jpeg = await photo();
const dir = mkdtempSync(join(tmpdir(), 'petal-bench-renditions-'));
mkdirSync(join(dir, 'content'));
writeFileSync(join(dir, 'content', 'dam.bench.xml'), assetFolderXml('bench', [{ name: 'photo.jpg', id: ID, mimeType: 'image/jpeg', fileName: 'photo.jpg', data: jpeg, width: WIDTH, height: HEIGHT }]));
writeFileSync(join(dir, 'petal.yaml'), `
store: sqlite:./petal.db
logLevel: warn
imaging: { transforms: free, cacheDir: ./renditions }
security:
  roles:
    anonymous:
      uriPermissions: [{ path: /dam/*, permission: get }, { path: /.health, permission: get }]
      workspacePermissions: { dam: [{ path: /, permission: read }, { path: /*, permission: read }] }
`);
const node = process.execPath;
// The CLI from source (bin/petal.js runs the compiled one, which may be older or absent).
const petal = (args: string[]) => ['--import', 'tsx', '--input-type=module', '--eval',
  `const { main } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/cli.ts')).href)}); const code = await main(${JSON.stringify(args)}); if (typeof code === 'number') process.exitCode = code;`];
await new Promise<void>((res, rej) => {
  const p = spawn(node, petal(['import', '--config', join(dir, 'petal.yaml'), join(dir, 'content')]), { stdio: 'inherit', cwd: ROOT });
  p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`import failed: ${code}`))));
});
const port = 18_300;
const server = spawn(node, petal(['serve', '--config', join(dir, 'petal.yaml'), '--port', String(port), '--host', '127.0.0.1']), { stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT });
try {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try { if ((await fetch(`${base}/.health`)).ok) break; } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  const get = async (url: string): Promise<{ ms: number; bytes: number; type: string }> => {
    const started = performance.now();
    const res = await fetch(url);
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${Buffer.from(body).toString().slice(0, 200)}`);
    return { ms: performance.now() - started, bytes: body.byteLength, type: res.headers.get('content-type') ?? '' };
  };
  const original = await get(`${base}/dam/jcr:${ID}/photo.jpg`);
  console.log(`original: ${WIDTH} × ${HEIGHT} JPEG, ${(jpeg.length / 1e6).toFixed(2)} MB (served in ${original.ms.toFixed(0)} ms)`);
  console.log(`${rounds} rounds, medians\n\n| output | first rendition | cached rendition | size |\n|---|---|---|---|`);
  for (const format of ['webp', 'avif']) {
    const url = `${base}/dam/jcr:${ID}/photo.jpg?width=960&format=${format}`;
    const firsts: number[] = [];
    const cached: number[] = [];
    let last = { ms: 0, bytes: 0, type: '' };
    for (let r = 0; r < rounds; r++) {
      // Empty the cache folder's files: the next request makes the rendition again.
      for (const sub of readdirSync(join(dir, 'renditions'))) rmSync(join(dir, 'renditions', sub), { recursive: true, force: true });
      firsts.push((await get(url)).ms);
      for (let i = 0; i < 5; i++) cached.push((last = await get(url)).ms);
    }
    if (last.type !== `image/${format}`) throw new Error(`${format}: got ${last.type}`);
    console.log(`| ${format.toUpperCase()}, 960 × 640 | ${median(firsts).toFixed(0)} ms | ${median(cached).toFixed(1)} ms | ${(last.bytes / 1024).toFixed(0)} KiB |`);
  }
} finally {
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
