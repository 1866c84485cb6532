// Notify layer: what the purger and the webhook sender log through (pino's Logger fits; so does a
// test's recorder).

export interface NotifyLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
