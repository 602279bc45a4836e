// Request ids: a caller's X-Request-Id is kept when it is safe to log, otherwise one is made.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// A random per-process prefix and a counter: unique across replicas and restarts, and far cheaper
// per request than a fresh UUID.
const processPrefix = `req_${randomBytes(6).toString('hex')}`;
let counter = 0;

export function requestIdFrom(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && SAFE_ID.test(given)) return given;
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${processPrefix}${counter.toString(36).padStart(6, '0')}`;
}

// Checkout protocols echo the caller's Request-Id whenever it is safe to put back in a header.
const SAFE_ECHO = /^[\x21-\x7e]{1,200}$/;

/** The Request-Id a checkout response carries: the caller's when safe, otherwise the server's own id. */
export function echoedRequestId(given: string | string[] | undefined, fallback: string): string {
  return typeof given === 'string' && SAFE_ECHO.test(given) ? given : fallback;
}
