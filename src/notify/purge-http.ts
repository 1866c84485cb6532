// Notify layer: the generic purge target: a POST of JSON `{keys, sequence, at}` to any URL, signed like
// webhooks (signature.ts) when a secret is configured, so that a front end can revalidate by the keys.
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import { postPurge, type PurgeBatch, type PurgeTargetSender } from './purge-target.js';

/** No vendor limit; a bound keeps one body small (about 12 KB). */
export const HTTP_MAX_KEYS = 1000;

export interface HttpTarget {
  readonly url: string;
  readonly secret?: string;
}

/** The JSON body a receiver gets. */
export interface HttpPurgeBody {
  readonly keys: readonly string[];
  readonly sequence: number;
  readonly at: string;
}

export function httpSender(target: HttpTarget): PurgeTargetSender {
  const shown = new URL(target.url);
  return {
    name: `http ${shown.origin}${shown.pathname}`,
    maxKeysPerCall: HTTP_MAX_KEYS,
    async send(batch: PurgeBatch, signal: AbortSignal): Promise<void> {
      const body: HttpPurgeBody = { keys: batch.keys, sequence: batch.sequence, at: batch.at };
      const text = JSON.stringify(body);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (target.secret !== undefined) headers[SIGNATURE_HEADER] = signatureHeader(target.secret, text);
      await postPurge(target.url, { headers, body: text }, signal);
    },
  };
}
