// Fastify glue shared by ACP and UCP: sends stored response bytes as they are, so a replay is byte-identical.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FinishedResponse } from '../shared/finished-response.ts';
import { IDEMPOTENCY_KEY_MAX } from './idempotent-request.ts';

export const JSON_TYPE = 'application/json';

export function jsonResponse(statusCode: number, body: unknown): FinishedResponse {
  return { statusCode, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(body) };
}

export function sendFinished(reply: FastifyReply, r: FinishedResponse, replayed = false): FastifyReply {
  reply.code(r.statusCode).headers(r.headers);
  if (replayed) reply.header('idempotent-replayed', 'true');
  return reply.send(r.body);
}

/** The Idempotency-Key of a request: undefined when absent, 'invalid' when empty, too long or repeated. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined | 'invalid' {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (
    Array.isArray(raw) ||
    raw.length === 0 ||
    raw.length > IDEMPOTENCY_KEY_MAX ||
    !/^[\x21-\x7e]+$/.test(raw)
  ) {
    return 'invalid';
  }
  return raw;
}

/** Checkout bodies are JSON; an empty body (a bare cancel) reads as no body rather than an error. */
export function lenientJsonParser(
  _request: FastifyRequest,
  body: string,
  done: (err: Error | null, body?: unknown) => void,
): void {
  if (body.trim() === '') {
    done(null, undefined);
    return;
  }
  try {
    done(null, JSON.parse(body));
  } catch (err) {
    (err as Error & { statusCode?: number }).statusCode = 400;
    done(err as Error);
  }
}
