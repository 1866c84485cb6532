#!/usr/bin/env node
// Entry point of the `petal` command: runs the compiled CLI (built by `npm install` through `prepare`).
import { main } from '../dist/cli.js';

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exitCode = 1; },
);
