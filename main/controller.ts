// Entry point of `npm run controller`: the operator alone, with /healthz, /readyz and /metrics.
import Fastify from 'fastify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { loadConfigOrExit } from '../api/config.ts';
import { loadKubeConfig } from '../cluster/kube-config.ts';
import { registerControllerGauges } from '../controller/metrics.ts';
import { controllerState, runController } from '../controller/run-controller.ts';
import { loadRegistry } from '../integrations/registry/load-registry.ts';
import { controllerOptions } from './controller-options.ts';

async function main(): Promise<void> {
  const config = loadConfigOrExit('colony controller');
  const app = Fastify({ logger: { level: config.logLevel } });
  const registry = loadRegistry(config.integrationsDir);
  const kc = loadKubeConfig(config.kubernetes);
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics, prefix: 'colony_controller_' });
  const running = await runController(controllerOptions(config, { kc, registry, log: app.log, metrics }));
  registerControllerGauges(metrics, controllerState(running));

  app.get('/healthz', async () => ({ status: 'ok', identity: running.identity }));
  app.get('/readyz', async (_request, reply) =>
    running.isReady()
      ? { status: 'ok', leader: running.isLeader() }
      : reply.code(503).send({ status: 'syncing' }),
  );
  app.get('/metrics', async (_request, reply) =>
    reply.type(metrics.contentType).send(await metrics.metrics()),
  );
  await app.listen({ port: config.controllerPort, host: config.host });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'controller shutting down: releasing the lease');
    setTimeout(() => process.exit(1), config.shutdownGraceMs).unref();
    running
      .stop()
      .then(() => app.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(
    `colony controller: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
