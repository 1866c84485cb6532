// Notify layer: one signed POST of a delivery to its webhook (the sender's attempts and `petal webhooks
// retry`), and the webhooks of petal.yaml with their secrets read from the environment.
import type { WebhookConfig } from '../config/notify-config.js';
import { sendOutbound } from './outbound-request.js';
import { compileFilter, type WebhookFilter } from './webhook-events.js';
import { signatureHeader, SIGNATURE_HEADER } from './signature.js';

export const DELIVERY_HEADER = 'petal-delivery';
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

export interface WebhookTarget {
  readonly filter: WebhookFilter;
  readonly url: string;
  readonly secret: string;
  readonly timeoutMs: number;
}

/** A webhook whose secret's environment variable is unset or empty: Petal does not start. */
export class WebhookSecretError extends Error {}

export function webhookTargets(configs: readonly WebhookConfig[], env: NodeJS.ProcessEnv = process.env): WebhookTarget[] {
  return configs.map((c) => {
    const secret = env[c.secretEnv];
    if (secret === undefined || secret === '') {
      throw new WebhookSecretError(`webhook ${c.name}: the environment variable ${c.secretEnv} (its secretEnv) is not set`);
    }
    return { filter: compileFilter(c), url: c.url, secret, timeoutMs: c.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS };
  });
}

/** How an attempt ended: a 2xx, or why not. */
export type AttemptResult = { readonly ok: true } | { readonly ok: false; readonly error: string };

/**
 * POSTs `body` signed now; never throws. Redirects count as failures, never followed (a POST must not
 * become a GET, and the signature is for this URL); the answer's body is not read.
 */
export async function postWebhook(target: WebhookTarget, id: string, body: string): Promise<AttemptResult> {
  try {
    const res = await sendOutbound({
      url: target.url, method: 'POST', body, timeoutMs: target.timeoutMs, maxResponseBytes: 0,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Petal-Webhooks',
        [SIGNATURE_HEADER]: signatureHeader(target.secret, body),
        [DELIVERY_HEADER]: id,
      },
    });
    if (res.redirect) return { ok: false, error: `HTTP ${res.status} (a redirect: not followed)` };
    return res.status >= 200 && res.status < 300 ? { ok: true } : { ok: false, error: `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
