// Entry point of `npm start`: loads config, serves the API, shuts down gracefully on SIGTERM/SIGINT.

import { loadConfigOrExit } from '../api/config.ts';
import { drainLogs } from '../api/observability/log-destination.ts';
import { buildServer } from '../api/server.ts';
import { PollerGate } from '../api/shared/poller-gate.ts';
import { registerControllerGauges } from '../controller/metrics.ts';
import { controllerState, type RunningController, runController } from '../controller/run-controller.ts';
import { controllerOptions } from './controller-options.ts';
import { electPollerLeader, type PollerElection } from './poller-election.ts';

async function main(): Promise<void> {
  const config = loadConfigOrExit('colony');
  const k = config.kubernetes;
  // With a poller Lease, no replica polls until it wins the election.
  const electing = k.pollerLease !== undefined && (k.kubeconfig !== undefined || k.inCluster);
  const pollerGate = new PollerGate(!electing);
  const app = await buildServer(config, { pollerGate });
  let controller: RunningController | undefined;
  let election: PollerElection | undefined;

  // Handlers come first: a SIGTERM that arrives while the server is still starting must be graceful too.
  let stopping = false;
  // Log lines are written asynchronously: the last requests' and the audit lines go out before exit.
  const exit = (code: number) => drainLogs().then(() => process.exit(code));
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      app.log.error('graceful shutdown timed out');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    Promise.all([controller?.stop(), election?.stop()])
      .then(() => app.close())
      .then(
        () => exit(0),
        (err) => {
          app.log.error({ err }, 'shutdown failed');
          return exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  if (app.managerServer && config.managerPort !== undefined)
    await app.managerServer.listen({ port: config.managerPort, host: config.host });
  app.log.info(
    { baseUrl: config.baseUrl, environment: config.environment, database: config.database.kind },
    'colony api ready',
  );
  // The controller and the poller election reuse the cluster config the server already loaded.
  const { kubeConfig, registry, metrics } = app.colony;
  if (electing && kubeConfig && k.pollerLease && !stopping)
    election = electPollerLeader({ kc: kubeConfig, lease: k.pollerLease, gate: pollerGate, log: app.log });
  if (config.kubernetes.runController && kubeConfig && !stopping) {
    controller = await runController(
      controllerOptions(config, { kc: kubeConfig, registry, log: app.log, metrics: metrics.registry }),
    );
    // The in-process controller's metrics are served on the API's /metrics.
    registerControllerGauges(metrics.registry, controllerState(controller));
  }
}

main().catch((err) => {
  process.stderr.write(
    `colony: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  void drainLogs().then(() => process.exit(1));
});
