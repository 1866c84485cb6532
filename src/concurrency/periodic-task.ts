// Concurrency: work run now and then every interval, one run at a time (a tick while one runs is
// skipped), on a timer that never keeps the process alive; stop() waits for the run in progress.

export class PeriodicTask {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  /** `run` reports its own failures: a rejection here is dropped so that the next tick still runs. */
  constructor(private readonly run: () => Promise<void>, private readonly intervalMs: number) {}

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    this.#tick();
    this.#timer = setInterval(() => this.#tick(), this.intervalMs);
    this.#timer.unref();
  }

  /** No further runs; resolves once the one in progress (if any) has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  #tick(): void {
    if (this.#running !== undefined || this.#stopped) return;
    this.#running = this.run().catch(() => undefined).finally(() => { this.#running = undefined; });
  }
}
