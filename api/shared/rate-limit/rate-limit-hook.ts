// Fastify glue for a RateLimiter: headers on every response, a surface-specific error when exhausted.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { type RateLimitDecision, type RateLimiter, rateLimitHeaders } from './rate-limiter.ts';

export interface RateLimitHookOptions {
  limiter: RateLimiter;
  /** Requests this returns true for are not counted (for example batch sub-requests). */
  skip?: (request: FastifyRequest) => boolean;
  /** Each surface answers in its own error format; it must send the reply. */
  onExceeded: (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision) => unknown;
  /** When the store is unreachable: true lets requests through (the default), false refuses them. */
  failOpen?: boolean;
}

/**
 * Headers are set on arrival, so every answer carries them: successes, problems and 404s alike.
 * A callback hook rather than an async one: with the in-memory store the whole check stays
 * synchronous, which matters on the hottest path of the API.
 */
export function rateLimitHook(opts: RateLimitHookOptions): onRequestHookHandler {
  return function rateLimit(request, reply, done) {
    if (opts.skip?.(request)) return done();
    const apply = (decision: RateLimitDecision) => {
      reply.headers(rateLimitHeaders(decision));
      if (decision.allowed) return done();
      reply.header('retry-after', String(decision.resetSeconds));
      opts.onExceeded(request, reply, decision);
    };
    const unavailable = (err: unknown) => {
      request.log.warn({ err }, 'rate-limit store unavailable');
      done(opts.failOpen === false ? (err as Error) : undefined);
    };
    try {
      const decision = opts.limiter.consumeNow(request.ip);
      if (decision instanceof Promise) decision.then(apply, unavailable);
      else apply(decision);
    } catch (err) {
      unavailable(err);
    }
  };
}
