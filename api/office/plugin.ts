// Office-manager API (spec 4.7): offices, their task queue, and an integration's credentials and
// agents in an office. Writes go to Kubernetes (Secret + Integration / AgentBinding); the controller
// does the rest. This plugin only wires routes to their handlers, in the order the OpenAPI lists them.
import type { FastifyInstance } from 'fastify';
import { type OfficeOptions, officeRouteContext } from './office-route-context.ts';
import { toggleAgentRoute } from './routes/agents.ts';
import { connectStartRoute } from './routes/connect.ts';
import { listIntegrationsRoute } from './routes/integrations.ts';
import { officeRoutes } from './routes/offices.ts';
import { deleteSecretRoute, saveSecretRoute } from './routes/secrets.ts';
import { taskRoutes } from './routes/tasks.ts';

export type { OfficeOptions } from './office-route-context.ts';

export async function officePlugin(app: FastifyInstance, opts: OfficeOptions): Promise<void> {
  const ctx = officeRouteContext(opts);
  officeRoutes(app, ctx);
  taskRoutes(app, ctx);
  connectStartRoute(app, ctx);
  saveSecretRoute(app, ctx);
  toggleAgentRoute(app, ctx);
  listIntegrationsRoute(app, ctx);
  deleteSecretRoute(app, ctx);
}
