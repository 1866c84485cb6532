// Shop layer (records): a refusal decided inside a store transaction. Returning it from the transaction
// would commit what the transaction wrote before deciding (an order's earlier stock lines); throwing it
// rolls everything back on both stores, and the store turns it back into its result outside.

/** Thrown inside a transaction to abort it; carries the result the store method answers with. */
export class Refusal<R> extends Error {
  constructor(readonly result: R) {
    super('refused inside a shop transaction');
    this.name = 'Refusal';
  }
}

/** Runs `tx` and answers the result of a Refusal it threw (after its rollback) as its own. */
export async function refusable<R>(tx: () => Promise<R>): Promise<R> {
  try {
    return await tx();
  } catch (err) {
    if (err instanceof Refusal) return err.result as R;
    throw err;
  }
}
