// Notify layer: Fastly's batch purge by surrogate key: `POST /service/{id}/purge` with the keys,
// space-separated, in a `Surrogate-Key` request header and the API token in `Fastly-Key`.
import { postPurge, trimSlash, type PurgeBatch, type PurgeTargetSender } from './purge-target.js';

export const FASTLY_API = 'https://api.fastly.com';
/** Fastly's documented limit of one batch purge. */
export const FASTLY_MAX_KEYS = 256;

export interface FastlyTarget {
  readonly serviceId: string;
  readonly token: string;
  readonly baseUrl?: string;
}

export function fastlySender(target: FastlyTarget): PurgeTargetSender {
  const url = `${trimSlash(target.baseUrl ?? FASTLY_API)}/service/${encodeURIComponent(target.serviceId)}/purge`;
  return {
    name: `fastly ${target.serviceId}`,
    maxKeysPerCall: FASTLY_MAX_KEYS,
    async send(batch: PurgeBatch, signal: AbortSignal): Promise<void> {
      await postPurge(url, {
        headers: { 'fastly-key': target.token, 'surrogate-key': batch.keys.join(' '), accept: 'application/json' },
      }, signal);
    },
  };
}
