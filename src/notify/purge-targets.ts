// Notify layer: the senders of petal.yaml's `cdn.purge` targets, with their secrets read from the
// environment once, at start (a missing variable stops the start rather than every purge failing).
import type { PurgeTarget } from '../config/notify-config.js';
import { cloudflareSender } from './purge-cloudflare.js';
import { fastlySender } from './purge-fastly.js';
import { httpSender } from './purge-http.js';
import { requiredEnv, type PurgeTargetSender } from './purge-target.js';

export function purgeSenders(targets: readonly PurgeTarget[], env: NodeJS.ProcessEnv = process.env): PurgeTargetSender[] {
  return targets.map((t, i) => {
    const what = `target ${i + 1} (${t.type})`;
    switch (t.type) {
      case 'fastly':
        return fastlySender({ serviceId: t.serviceId, token: requiredEnv(env, t.tokenEnv, `${what} tokenEnv`), ...(t.baseUrl !== undefined ? { baseUrl: t.baseUrl } : {}) });
      case 'cloudflare':
        return cloudflareSender({ zoneId: t.zoneId, token: requiredEnv(env, t.tokenEnv, `${what} tokenEnv`), ...(t.baseUrl !== undefined ? { baseUrl: t.baseUrl } : {}) });
      case 'http':
        return httpSender({ url: t.url, ...(t.secretEnv !== undefined ? { secret: requiredEnv(env, t.secretEnv, `${what} secretEnv`) } : {}) });
    }
  });
}
