// Liveness and readiness for Kubernetes probes: /healthz says the process runs, /readyz that it can serve.
import type { FastifyInstance } from 'fastify';

export function registerHealthRoutes(app: FastifyInstance, isShuttingDown: () => boolean): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (isShuttingDown()) return reply.code(503).send({ status: 'shutting_down' });
    try {
      const latencyMs = await app.colony.storage.ping();
      return { status: 'ok', database: { kind: app.colony.storage.kind, latencyMs } };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', database: (err as Error).message });
    }
  });
}
