// Notify layer: Cloudflare's purge by cache tag: `POST /zones/{zone}/purge_cache` with JSON
// `{"tags": [...]}` and a bearer API token. Cloudflare answers 200 with `success: false` for some
// refusals, so the body is read as well as the status.
import { PurgeCallError, postPurge, trimSlash, type PurgeBatch, type PurgeTargetSender } from './purge-target.js';

export const CLOUDFLARE_API = 'https://api.cloudflare.com/client/v4';
/**
 * Tags one purge call may name: 100 on every plan since Cloudflare opened tag purges to all plans
 * (2025; it was 30 before). Fewer, larger calls matter: Free accounts may make 5 purge calls a minute.
 */
export const CLOUDFLARE_MAX_TAGS = 100;

export interface CloudflareTarget {
  readonly zoneId: string;
  readonly token: string;
  readonly baseUrl?: string;
}

export function cloudflareSender(target: CloudflareTarget): PurgeTargetSender {
  const url = `${trimSlash(target.baseUrl ?? CLOUDFLARE_API)}/zones/${encodeURIComponent(target.zoneId)}/purge_cache`;
  return {
    name: `cloudflare ${target.zoneId}`,
    maxKeysPerCall: CLOUDFLARE_MAX_TAGS,
    async send(batch: PurgeBatch, signal: AbortSignal): Promise<void> {
      const text = await postPurge(url, {
        headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tags: batch.keys }),
      }, signal);
      if (refused(text)) throw new PurgeCallError(`POST ${url} answered success: false: ${text.slice(0, 200)}`, false);
    },
  };
}

function refused(text: string): boolean {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
  } catch {
    return false; // not Cloudflare's JSON (a proxy's 2xx): the status said yes
  }
}
