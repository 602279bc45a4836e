// The office-manager API on a listener of its own (COLONY_MANAGER_PORT), so operators can keep the
// write path off the public port: same services, errors, rate limit and routes as under PORT.
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import Fastify from 'fastify';
import { type Metrics, observeRequests } from '../observability/metrics.ts';
import { hostileRequestError, installInputGuards, type slowClientOptions } from '../shared/input-guards.ts';
import { jsonSerializerCompiler } from '../shared/json-serializer.ts';
import { type Mount, mountAll } from '../shared/mount.ts';
import { validatorCompiler } from '../shared/query-validator.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The office-manager listener when COLONY_MANAGER_PORT is set; closed with the main server. */
    managerServer: FastifyInstance | undefined;
  }
}

export interface ManagerServerOptions {
  log: FastifyBaseLogger;
  /** The main server's options that apply to any listener (ids, proxies, limits, framework errors). */
  base: Pick<
    FastifyServerOptions,
    | 'genReqId'
    | 'logController'
    | 'trustProxy'
    | 'bodyLimit'
    | 'frameworkErrors'
    | 'clientErrorHandler'
    | 'return503OnClosing'
  > &
    ReturnType<typeof slowClientOptions>;
  /** Installs the route table, the answers while closing and the root not-found and error handlers. */
  install(app: FastifyInstance): unknown;
  validateResponses: boolean;
  /** Install the input guards (api/shared/input-guards.ts), as the main listener does. */
  inputGuards: boolean;
  metrics: Metrics;
  /** What it serves, from the mount table (api/routes.ts): the office-manager surfaces under /api/v1. */
  mounts: readonly Mount[];
}

export async function buildManagerServer(opts: ManagerServerOptions): Promise<FastifyInstance> {
  const app = Fastify({ ...opts.base, loggerInstance: opts.log });
  opts.install(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(jsonSerializerCompiler(opts.validateResponses === true));
  if (opts.inputGuards) installInputGuards(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done(opts.inputGuards ? hostileRequestError(request, reply) : undefined);
  });
  observeRequests(app, opts.metrics);
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  await mountAll(app, opts.mounts);
  return app;
}
