// Shop layer: request bodies of the shop's writes, validated with zod; the first problem becomes a 400
// `invalidField` whose message starts with the field's path (`shippingAddress.country: …`).
import { z } from 'zod';
import { PetalError } from '../errors.js';
import type { Address } from './shop-store.js';

/** The largest quantity of one cart line. */
export const MAX_LINE_QUANTITY = 999;
/** Distinct products of one cart: records stay small, pricing a cart stays cheap. */
export const MAX_CART_LINES = 100;
/** Products of one wishlist. */
export const MAX_WISHLIST_ITEMS = 200;

/** U+0000 (PostgreSQL text cannot hold it, SQLite can) or an unpaired UTF-16 surrogate (no UTF-8 form). */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Every string of a shop body: text both stores keep alike, checked first so its problem is the one named. */
const string = () => z.string().refine((v) => !UNSTORABLE.test(v), 'U+0000 and unpaired surrogates are not allowed');
const id = string().trim().min(1, 'required').max(200, 'at most 200 characters');
const text = (max: number) => string().trim().min(1, 'required').max(max, `at most ${max} characters`);
const optionalText = (max: number) => string().trim().max(max, `at most ${max} characters`).optional();
const email = string().trim().max(254).regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'not an e-mail address');

const address = z.object({
  firstName: text(100),
  lastName: text(100),
  company: optionalText(200),
  street: text(200),
  street2: optionalText(200),
  postalCode: text(20),
  city: text(100),
  region: optionalText(100),
  country: string().trim().regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code such as DE').transform((c) => c.toUpperCase()),
  email: email.optional(),
  phone: optionalText(40),
}).strict();

export const cartItemBody = z.object({
  productId: id,
  quantity: z.number().int('an integer').min(1, 'at least 1').max(MAX_LINE_QUANTITY, `at most ${MAX_LINE_QUANTITY}`).default(1),
}).strict();

export const cartItemUpdateBody = z.object({
  productId: id,
  quantity: z.number().int('an integer').min(0, 'at least 0').max(MAX_LINE_QUANTITY, `at most ${MAX_LINE_QUANTITY}`),
}).strict();

export const newCartBody = z.object({
  catalogId: id.optional(),
  currency: string().trim().regex(/^[A-Za-z]{3}$/, 'an ISO 4217 code such as EUR').transform((c) => c.toUpperCase()).optional(),
}).strict();

export const newWishlistBody = z.object({ productId: id.optional() }).strict();

export const orderBody = z.object({
  billingAddress: address,
  shippingAddress: address,
  shippingMethodId: id,
  email: email.optional(),
}).strict();

export type OrderBody = z.output<typeof orderBody> & { billingAddress: Address; shippingAddress: Address };

/** Parses `body` (undefined = an empty object) or throws `invalidField` naming the first bad field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.join('.');
  const what = issue.code === 'unrecognized_keys' ? `unknown field(s) ${issue.keys.join(', ')}`
    : issue.code === 'invalid_type' && issue.message.endsWith('received undefined') ? 'required' : issue.message;
  if (path === '' && issue.code === 'invalid_type') throw new PetalError('invalidField', 'body: expected a JSON object');
  throw new PetalError('invalidField', path === '' ? what : `${path}: ${what}`);
}
