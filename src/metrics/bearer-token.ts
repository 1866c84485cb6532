// Metrics: the scrape token. Compared in constant time (over digests, so lengths leak nothing either).
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** A test for `Authorization` header values: true only for `Bearer <token>`. */
export function bearerMatcher(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    if (authorization === undefined || !/^bearer /i.test(authorization)) return false;
    return timingSafeEqual(digest(authorization.slice(7).trim()), expected);
  };
}
