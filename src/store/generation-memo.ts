// Store layer: answers that only change with the content (property kinds, node types present),
// kept for the current generation so that a query does not ask the database for them every time.
export class GenerationMemo {
  #generation: number | undefined;
  #values = new Map<string, unknown>();
  readonly #max: number;

  constructor(maxEntries = 1_000) {
    this.#max = maxEntries;
  }

  async get<T>(generation: number, key: string, load: () => Promise<T> | T): Promise<T> {
    if (generation !== this.#generation) {
      this.#values = new Map();
      this.#generation = generation;
    }
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = await load();
    if (this.#generation === generation) {
      if (this.#values.size >= this.#max) this.#values.clear();
      this.#values.set(key, value);
    }
    return value;
  }
}
