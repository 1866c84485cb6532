// Notify layer: one signed POST of a delivery to its webhook (the sender's attempts and `petal webhooks
// retry`), and the webhooks of petal.yaml with their secrets read from the environment.
import type { WebhookConfig } from '../config/notify-config.js';
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

/** POSTs `body` signed now; never throws. Redirects count as failures (a POST must not become a GET). */
export async function postWebhook(target: WebhookTarget, id: string, body: string): Promise<AttemptResult> {
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(target.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Petal-Webhooks',
        [SIGNATURE_HEADER]: signatureHeader(target.secret, body),
        [DELIVERY_HEADER]: id,
      },
    });
    await res.body?.cancel().catch(() => undefined); // the answer's body means nothing; free the socket
    return res.status >= 200 && res.status < 300 ? { ok: true } : { ok: false, error: `HTTP ${res.status}` };
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return { ok: false, error: `no answer within ${target.timeoutMs} ms` };
    return { ok: false, error: `${err instanceof Error ? err.message : String(err)}${cause}` };
  }
}
