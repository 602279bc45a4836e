// The public read API under /api/v1: problem+json errors, rate-limit headers, the nine operations.
import type { FastifyInstance } from 'fastify';
import { registerKeyRoutes } from '../identity/keys/routes.ts';
import { integrationsPlugin } from '../integrations/plugin.ts';
import { officePlugin } from '../office/plugin.ts';
import { installProblemHandlers } from '../shared/problem-handlers.ts';
import { apiRateLimit } from './api-rate-limit.ts';
import { registerBatchRoute } from './batch-route.ts';
import { registerJobRoutes } from './jobs-routes.ts';
import { registerMeRoute } from './me-route.ts';
import { registerReadRoutes } from './read-routes.ts';

export async function publicApiPlugin(app: FastifyInstance): Promise<void> {
  const { config } = app.colony;
  installProblemHandlers(app, config.baseUrl);
  // Bodies on /api/v1 are JSON only; anything else is a 415 rather than a confusing validation error.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', apiRateLimit(app.colony));

  registerReadRoutes(app);
  registerJobRoutes(app);
  registerBatchRoute(app);
  registerMeRoute(app);
  await app.register(integrationsPlugin, { prefix: '/integrations' });
  registerKeyRoutes(app);
  // With COLONY_MANAGER_PORT set the office-manager API listens there only (api/office/manager-server.ts).
  if (config.managerPort === undefined) await app.register(officePlugin, { prefix: '/offices' });
}
