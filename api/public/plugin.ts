// The public read API under /api/v1: the index, status, pricing, skills, catalog, jobs, batch and /me.
// Its scope (problem+json, JSON bodies, request budget) and its neighbours there come from api/routes.ts.
import type { FastifyInstance } from 'fastify';
import { type BatchRouteOptions, registerBatchRoute } from './batch-route.ts';
import { type JobRoutesOptions, registerJobRoutes } from './jobs-routes.ts';
import { type MeRouteOptions, registerMeRoute } from './me-route.ts';
import { type ReadRoutesOptions, registerReadRoutes } from './read-routes.ts';

export type PublicApiOptions = ReadRoutesOptions & JobRoutesOptions & BatchRouteOptions & MeRouteOptions;

export async function publicApiPlugin(app: FastifyInstance, opts: PublicApiOptions): Promise<void> {
  registerReadRoutes(app, opts);
  registerJobRoutes(app, opts);
  registerBatchRoute(app, opts);
  registerMeRoute(app, opts);
}
