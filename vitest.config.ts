import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once per run when src/ is newer (bin/petal.js, which the end-to-end tests spawn, runs it).
    globalSetup: ['test/global-setup.ts'],
    // A test's time limit catches hangs; it is no performance check. On 2 cores shared with other work a
    // default-cost scrypt or a child process's start takes seconds, so the limits are generous.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Forks, not threads: test/helpers/run-cli.ts changes the working folder (process.chdir), which a worker thread may not.
    pool: 'forks',
    // Vitest's default on a 2-core machine is one fork, and much of the suite waits on child
    // processes (the CLI, servers, crash tests) and on PostgreSQL: two forks keep both cores busy.
    // PETAL_TEST_WORKERS overrides it (1 reproduces a serial run).
    maxWorkers: Number(process.env.PETAL_TEST_WORKERS ?? 2),
    minWorkers: 1,
  },
});
