// Responses whose bytes are computed once: serialised with an ETag, answered 304 when unchanged.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CachedJson {
  /**
   * Serialised once, and sent as a string: Node writes a string body in one write with the head,
   * while a Buffer body goes out as a second chunk of a writev, which costs more per response than
   * encoding a few KB again (paired runs, docs/decisions.md).
   */
  text: string;
  etag: string;
}

export function cacheJson(value: unknown): CachedJson {
  const text = JSON.stringify(value);
  return { text, etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"` };
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return (
    ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)
  );
}

export function sendCachedJson(
  request: FastifyRequest,
  reply: FastifyReply,
  cached: CachedJson,
): FastifyReply {
  reply.header('etag', cached.etag);
  if (matches(request.headers['if-none-match'], cached.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(cached.text);
}
