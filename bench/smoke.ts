// Bench helper: the smoke mode (PETAL_BENCH_SMOKE=1, set by test/bench/smoke.test.ts). A bench script
// then walks its whole path once with the smallest budget that still exercises it (a few requests per
// load, small data), so that a change that breaks a script fails the suite instead of the next
// measurement; the figures it prints in this mode mean nothing.

export const SMOKE = process.env.PETAL_BENCH_SMOKE === '1';

/** `full` when measuring, `tiny` in smoke mode. */
export function budget<T>(full: T, tiny: T): T {
  return SMOKE ? tiny : full;
}

/**
 * How long an autocannon run lasts: `seconds`, or in smoke mode a handful of requests (sampled every
 * 10 ms: autocannon otherwise waits for its first 1-second sample before it ends).
 */
export function span(seconds: number): { duration: number } | { amount: number; sampleInt: number } {
  return SMOKE ? { amount: 40, sampleInt: 10 } : { duration: seconds };
}
