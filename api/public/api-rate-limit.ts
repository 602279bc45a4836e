// The /api/v1 request budget as an onRequest hook: one limiter, shared by the public API, the
// backups API and the office-manager API wherever each of them listens.
import type { onRequestHookHandler } from 'fastify';
import type { Metrics } from '../observability/metrics.ts';
import { sendProblem } from '../shared/problem-handlers.ts';
import { rateLimitHook } from '../shared/rate-limit/rate-limit-hook.ts';
import type { RateLimiter } from '../shared/rate-limit/rate-limiter.ts';
import { BATCH_HEADER } from './batch-route.ts';

export interface ApiRateLimitOptions {
  baseUrl: string;
  limiter: RateLimiter;
  /** Marks the sub-requests of a batch, which were already charged to the batch's caller. */
  batchSecret: string;
  metrics: Metrics;
}

export function apiRateLimit(opts: ApiRateLimitOptions): onRequestHookHandler {
  const { baseUrl, limiter, batchSecret, metrics } = opts;
  return rateLimitHook({
    limiter,
    skip: (request) => request.headers[BATCH_HEADER] === batchSecret,
    onExceeded: (request, reply, decision) => {
      metrics.rateLimited.labels('api').inc();
      return sendProblem(
        reply,
        request,
        baseUrl,
        'rate_limited',
        `Rate limit of ${decision.limit} requests per window exceeded; retry after ${decision.resetSeconds} seconds.`,
      );
    },
  });
}
