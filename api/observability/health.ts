// Liveness and readiness for Kubernetes probes: /healthz says the process runs, /readyz that it can serve.
import type { FastifyInstance } from 'fastify';
import type { Storage } from '../app-storage.ts';

export interface HealthOptions {
  /** Readiness is a database round trip. */
  storage: Storage;
  isShuttingDown: () => boolean;
}

export async function healthRoutes(app: FastifyInstance, opts: HealthOptions): Promise<void> {
  const { storage, isShuttingDown } = opts;
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (isShuttingDown()) return reply.code(503).send({ status: 'shutting_down' });
    try {
      const latencyMs = await storage.ping();
      return { status: 'ok', database: { kind: storage.kind, latencyMs } };
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', database: (err as Error).message });
    }
  });
}
