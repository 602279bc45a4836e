// The office-manager API on a listener of its own (COLONY_MANAGER_PORT), so operators can keep the
// write path off the public port: same services, errors, rate limit and routes as under PORT.
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import Fastify from 'fastify';
import { serializerCompiler as validatingSerializer } from 'fastify-type-provider-zod';
import type { AppServices } from '../app-services.ts';
import { observeRequests } from '../observability/metrics.ts';
import { apiRateLimit } from '../public/api-rate-limit.ts';
import { installProblemHandlers } from '../shared/problem-handlers.ts';
import { validatorCompiler } from '../shared/query-validator.ts';
import { officePlugin } from './plugin.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The office-manager listener when COLONY_MANAGER_PORT is set; closed with the main server. */
    managerServer: FastifyInstance | undefined;
  }
}

export interface ManagerServerOptions {
  services: AppServices;
  log: FastifyBaseLogger;
  /** The main server's options that apply to any listener (ids, proxies, body limit). */
  base: Pick<FastifyServerOptions, 'genReqId' | 'logController' | 'trustProxy' | 'bodyLimit'>;
  validateResponses: boolean;
}

export async function buildManagerServer(opts: ManagerServerOptions): Promise<FastifyInstance> {
  const app = Fastify({ ...opts.base, loggerInstance: opts.log, return503OnClosing: true });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(
    opts.validateResponses ? validatingSerializer : () => (data: unknown) => JSON.stringify(data),
  );
  app.decorate('colony', opts.services);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  observeRequests(app, opts.services.metrics);
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  await app.register(
    async (api) => {
      installProblemHandlers(api, opts.services.config.baseUrl);
      api.removeContentTypeParser('text/plain');
      api.addHook('onRequest', apiRateLimit(api.colony));
      await api.register(officePlugin, { prefix: '/offices' });
    },
    { prefix: '/api/v1' },
  );
  return app;
}
