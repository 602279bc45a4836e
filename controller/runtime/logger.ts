// The logger the controller writes to: the part of pino (Fastify's logger) it uses, so tests can
// pass a recorder and the controller can run without one.
export interface Logger {
  child(bindings: Record<string, unknown>): Logger;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Discards everything: the default when nobody asked for logs (tests, benchmarks). */
export const silentLogger: Logger = {
  child: () => silentLogger,
  info: () => {},
  warn: () => {},
  error: () => {},
};
