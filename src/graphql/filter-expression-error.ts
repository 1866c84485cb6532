// GraphQL layer: a `filter:` argument Petal cannot run, with the 0-based offset in the text where it
// went wrong, so that a caller can point at it (not an HTTP error: the API turns it into one).

export class FilterExpressionError extends Error {
  constructor(message: string, readonly position: number) {
    super(message);
    this.name = 'FilterExpressionError';
  }
}
