// Child process of shutdown tests: `petal serve` exactly as the command runs it (signal handling
// included). argv: the arguments of `petal`, e.g. serve --config <petal.yaml>.
import { main } from '../../src/cli.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err: unknown) => { console.error(err); process.exitCode = 1; },
);
