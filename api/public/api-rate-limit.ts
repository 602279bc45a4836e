// The /api/v1 request budget as an onRequest hook: one limiter, shared by the public API and the
// office-manager API wherever each of them listens.
import type { onRequestHookHandler } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { sendProblem } from '../shared/problem-handlers.ts';
import { rateLimitHook } from '../shared/rate-limit/rate-limit-hook.ts';
import { BATCH_HEADER } from './batch-route.ts';

export function apiRateLimit(services: AppServices): onRequestHookHandler {
  const { config, apiLimiter, batchSecret, metrics } = services;
  return rateLimitHook({
    limiter: apiLimiter,
    // Sub-requests of a batch were already charged to the batch's caller.
    skip: (request) => request.headers[BATCH_HEADER] === batchSecret,
    onExceeded: (request, reply, decision) => {
      metrics.rateLimited.labels('api').inc();
      return sendProblem(
        reply,
        request,
        config.baseUrl,
        'rate_limited',
        `Rate limit of ${decision.limit} requests per window exceeded; retry after ${decision.resetSeconds} seconds.`,
      );
    },
  });
}
