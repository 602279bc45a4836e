// Fastify glue for a RateLimiter: headers on every response, a surface-specific error when exhausted.
import type { FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';
import { type RateLimitDecision, type RateLimiter, rateLimitHeaders } from './rate-limiter.ts';

export interface RateLimitHookOptions {
  limiter: RateLimiter;
  /** Requests this returns true for are not counted (for example batch sub-requests). */
  skip?: (request: FastifyRequest) => boolean;
  /** How many units a request costs (default 1). */
  cost?: (request: FastifyRequest) => number;
  /** Each surface answers in its own error format. */
  onExceeded: (request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision) => unknown;
  /** When the store is unreachable: true lets requests through (the default), false refuses them. */
  failOpen?: boolean;
}

export function rateLimitHooks(opts: RateLimitHookOptions): {
  onRequest: onRequestHookHandler;
  onSend: onSendHookHandler;
} {
  return {
    async onRequest(request, reply) {
      if (opts.skip?.(request)) return;
      let decision: RateLimitDecision;
      try {
        decision = await opts.limiter.consume(request.ip, opts.cost?.(request) ?? 1);
      } catch (err) {
        request.log.warn({ err }, 'rate-limit store unavailable');
        if (opts.failOpen === false) throw err;
        return;
      }
      request.rateLimitHeaders = rateLimitHeaders(decision);
      if (!decision.allowed) {
        reply.header('retry-after', String(decision.resetSeconds));
        return opts.onExceeded(request, reply, decision);
      }
    },
    async onSend(request, reply, payload) {
      if (request.rateLimitHeaders) reply.headers(request.rateLimitHeaders);
      return payload;
    },
  };
}
