// The public read API under /api/v1: problem+json errors, rate-limit headers, the nine operations.
import type { FastifyInstance } from 'fastify';
import { officePlugin } from '../office/plugin.ts';
import { installProblemHandlers, sendProblem } from '../shared/problem-handlers.ts';
import { rateLimitHook } from '../shared/rate-limit/rate-limit-hook.ts';
import { BATCH_HEADER, registerBatchRoute } from './batch-route.ts';
import { registerJobRoutes } from './jobs-routes.ts';
import { registerMeRoute } from './me-route.ts';
import { registerReadRoutes } from './read-routes.ts';

export async function publicApiPlugin(app: FastifyInstance): Promise<void> {
  const { config, apiLimiter, batchSecret, metrics } = app.colony;
  installProblemHandlers(app, config.baseUrl);
  // Bodies on /api/v1 are JSON only; anything else is a 415 rather than a confusing validation error.
  app.removeContentTypeParser('text/plain');

  const limit = rateLimitHook({
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
  app.addHook('onRequest', limit);

  registerReadRoutes(app);
  registerJobRoutes(app);
  registerBatchRoute(app);
  registerMeRoute(app);
  await app.register(officePlugin, { prefix: '/offices' });
}
