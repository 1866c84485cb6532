// Child process of json-scan.test.ts: the scan as Node runs it outside vitest (whose transform changed
// what V8's optimizing compiler did with the first form of the scan): one wide body behind a key,
// scanned 8 times; prints the 8 answers as JSON.
import { scanJson } from '../../src/http/json-scan.js';

const text = `{"properties":[${Array(2_500_000).fill('[]').join(',')}]}`;
const limits = { maxDepth: 64, maxItems: 1_000_000, maxStringChars: 20_000_000 };
process.stdout.write(JSON.stringify(Array.from({ length: 8 }, () => scanJson(text, limits))));
