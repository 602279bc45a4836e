// Fastify glue for a RateLimiter: headers on every response, a surface-specific error when exhausted.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.ts';

type HookDone = HookHandlerDoneFunction;

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
  const { limiter, skip, onExceeded } = opts;
  const refuse = opts.failOpen === false;
  return function rateLimit(request, reply, done) {
    if (skip?.(request)) return done();
    let decision: RateLimitDecision | Promise<RateLimitDecision>;
    try {
      decision = limiter.consumeNow(request.ip);
    } catch (err) {
      return storeUnavailable(request, done, err, refuse);
    }
    if (!(decision instanceof Promise)) return applyDecision(request, reply, done, decision, onExceeded);
    decision.then(
      (d) => applyDecision(request, reply, done, d, onExceeded),
      (err) => storeUnavailable(request, done, err, refuse),
    );
  };
}

/** X-RateLimit-Limit, -Remaining and -Reset for one decision (the hook's and a batch's extra charge). */
export function setRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  reply
    .header('x-ratelimit-limit', String(decision.limit))
    .header('x-ratelimit-remaining', String(decision.remaining))
    .header('x-ratelimit-reset', String(decision.resetSeconds));
}

// Module-level rather than closures made per request: this runs on every API request.
function applyDecision(
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookDone,
  decision: RateLimitDecision,
  onExceeded: RateLimitHookOptions['onExceeded'],
): void {
  setRateLimitHeaders(reply, decision);
  if (decision.allowed) {
    done();
    return;
  }
  reply.header('retry-after', String(decision.resetSeconds));
  onExceeded(request, reply, decision);
}

function storeUnavailable(request: FastifyRequest, done: HookDone, err: unknown, refuse: boolean): void {
  request.log.warn({ err }, 'rate-limit store unavailable');
  done(refuse ? (err as Error) : undefined);
}
