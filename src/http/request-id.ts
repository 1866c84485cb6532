// HTTP layer: the id of a request (`X-Request-Id` of the answer, `reqId` of its log line): the client's
// own when it is a plain token, otherwise a process-unique prefix and a counter (unique across
// instances, no random bytes per request). Fastify's genReqId and the path for cached answers share it.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const REQUEST_ID = /^[\w.:-]{1,64}$/;
const bootId = randomUUID().slice(0, 8);
let requestCount = 0;

export function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : `${bootId}-${(++requestCount).toString(36)}`;
}
