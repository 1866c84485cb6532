// HTTP layer: the one log line per request (at level info), written after the answer: by the app's
// onResponse hook, or by the path for cached answers (cached-hits.ts). One shape for both.
import type { Logger } from 'pino';

export interface RequestLogLine {
  readonly reqId: string;
  readonly method: string;
  /** The URL as the client sent it (a preview request's before its rewrite). */
  readonly url: string;
  /** The content served, when publishing is on. */
  readonly state?: 'live' | 'preview';
  readonly status: number;
  /** Milliseconds, one decimal. */
  readonly ms: number;
}

export function logRequest(logger: Logger, line: RequestLogLine): void {
  logger.info(line, 'request');
}
