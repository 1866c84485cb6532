// The one error table of Petal (all layers): code → HTTP status and default message.
// Only http/error-handler.ts turns a PetalError into a response; other layers just throw it.

export const ERRORS = {
  // Delivery: content
  pathNotFound: { status: 404, message: 'No node at this path' },
  notFound: { status: 404, message: 'No endpoint or route matches this URL' },
  versionNotFound: { status: 404, message: 'No such version of this node' },
  // Delivery: request
  invalidQuery: { status: 400, message: 'The query is invalid' },
  invalidValueFormat: { status: 400, message: 'A value cannot be converted to the expected type' },
  badRequest: { status: 400, message: 'The request is malformed' },
  invalidParameter: { status: 400, message: 'A query parameter is invalid' },
  // Content import (the message names the file, and the line where known)
  invalidImport: { status: 400, message: 'An export file is invalid' },
  importConflict: { status: 409, message: 'An export file conflicts with the content' },
  // Nodes API writes (the message names the field of the body)
  nodeExists: { status: 409, message: 'A sibling node of this name exists' },
  identifierInUse: { status: 409, message: 'This identifier belongs to another node' },
  preconditionFailed: { status: 412, message: 'The node has changed since the ETag of If-Match was read' },
  // Publishing (commands API, schedules)
  parentNotPublished: { status: 409, message: 'The parent of this node is not published yet; publish it first' },
  scheduleNotFound: { status: 404, message: 'No such schedule' },
  // Security
  notAuthorized: { status: 401, message: 'Authentication is required' },
  accessDenied: { status: 403, message: 'Access denied' },
  // Protocol
  methodNotAllowed: { status: 405, message: 'Method not allowed' },
  notAcceptable: { status: 406, message: 'Not acceptable' },
  requestTimeout: { status: 408, message: 'The request took too long to arrive' },
  payloadTooLarge: { status: 413, message: 'Request body too large' },
  uriTooLong: { status: 414, message: 'URI too long' },
  unsupportedMediaType: { status: 415, message: 'Unsupported media type' },
  expectationFailed: { status: 417, message: 'Only the expectation 100-continue is supported' },
  headersTooLarge: { status: 431, message: 'Request headers too large' },
  tooManyRequests: { status: 429, message: 'Too many failed attempts; try again later' },
  // Shop (deprecated /shop/v1)
  catalogNotFound: { status: 404, message: 'No such catalog' },
  categoryNotFound: { status: 404, message: 'No such category' },
  shippingMethodNotFound: { status: 404, message: 'No such shipping method' },
  cartNotFound: { status: 404, message: 'No cart (missing, expired or not yours)' },
  wishlistNotFound: { status: 404, message: 'No wishlist (missing, expired or not yours)' },
  cartItemNotFound: { status: 404, message: 'The cart has no line for this product' },
  invalidField: { status: 400, message: 'A field of the request body is invalid' },
  cartAlreadyOrdered: { status: 409, message: 'This cart has already been ordered' },
  insufficientStock: { status: 409, message: 'Not enough stock for this product' },
  cartConflict: { status: 409, message: 'The cart changed concurrently too often; try again' },
  productNotFound: { status: 422, message: 'No such product' },
  priceNotAvailable: { status: 422, message: 'The product has no valid price in the cart currency' },
  productNotInCatalog: { status: 422, message: 'The product belongs to another catalog than the cart' },
  currencyNotInCatalog: { status: 422, message: "The cart's currency is not a currency of the product's catalog" },
  quantityLimitExceeded: { status: 422, message: 'The quantity of a cart line is too large' },
  tooManyItems: { status: 422, message: 'The cart or wishlist already holds as many products as allowed' },
  amountLimitExceeded: { status: 422, message: 'The cart would total more than the largest amount allowed' },
  cartEmpty: { status: 422, message: 'The cart has no items' },
  shippingNotAvailable: { status: 422, message: 'The shipping method has no rate for this cart and address' },
  idempotencyKeyReused: { status: 422, message: 'This Idempotency-Key was used with another request' },
  // Server
  serviceUnavailable: { status: 503, message: 'The content store is not reachable' },
  unknown: { status: 500, message: 'An unexpected error occurred' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export interface PetalErrorOptions {
  readonly cause?: unknown;
  /** When the caller may try again (sent as `Retry-After`). */
  readonly retryAfterSeconds?: number;
}

export class PetalError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message?: string, options?: PetalErrorOptions) {
    super(message ?? ERRORS[code].message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'PetalError';
    this.code = code;
    this.status = ERRORS[code].status;
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isPetalError(err: unknown): err is PetalError {
  return err instanceof PetalError;
}
