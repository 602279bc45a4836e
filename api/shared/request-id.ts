// Request ids: a caller's X-Request-Id is kept when it is safe to log, otherwise one is made.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
}
