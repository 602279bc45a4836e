// Runs the controller under leader election: only the replica holding the Lease reconciles; a new
// controller (fresh caches and queues) is started for every term of leadership.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import { LABEL_OFFICE } from '../cluster/labels.ts';
import type { IntegrationRegistry } from '../integrations/registry/load-registry.ts';
import { ColonyController, type ColonyControllerOptions } from './colony-controller.ts';
import type { ControllerMetrics, ControllerState } from './metrics.ts';
import { countingKubeConfig } from './runtime/counting-kube-config.ts';
import { LeaderElector } from './runtime/leader-election.ts';

export interface RunningController {
  identity: string;
  isLeader(): boolean;
  /** Ready: a follower is always ready; the leader once its caches are synced. */
  isReady(): boolean;
  current(): ColonyController | undefined;
  stop(): Promise<void>;
}

/** What the scrape-time gauges read from a running controller. */
export function controllerState(running: RunningController): ControllerState {
  return {
    queueDepth: (queue) => running.current()?.[queue].length ?? 0,
    isLeader: () => running.isLeader(),
    writes: () => running.current()?.writes ?? 0,
    cachedObjects: () => running.current()?.cachedObjects ?? 0,
  };
}

export const DEFAULT_CONTROLLER_LEASE = 'colony-system/colony-controller';

export interface RunControllerOptions {
  kc: KubeConfig;
  registry: IntegrationRegistry;
  /** `<namespace>/<name>` of the leader Lease; DEFAULT_CONTROLLER_LEASE when not configured. */
  lease?: string | undefined;
  log: FastifyBaseLogger;
  namespace?: string | undefined;
  /** `offices`: watch only office namespaces, each on its own (COLONY_RBAC_SCOPE). */
  rbacScope?: 'cluster' | 'offices' | undefined;
  metrics?: ControllerMetrics | undefined;
  resyncSeconds?: number | undefined;
  workers?: number | undefined;
  /** Layer settings passed through to every term's controller. */
  layers?: Pick<
    ColonyControllerOptions,
    | 'initImage'
    | 'podSecurity'
    | 'credentialChecks'
    | 'imageOverrides'
    | 'officeDatabaseUrl'
    | 'officeDatabaseAgentHost'
    | 'trimCache'
    | 'meteringIntervalMs'
  >;
}

export async function runController(opts: RunControllerOptions): Promise<RunningController> {
  const [namespace = '', name = ''] = (opts.lease ?? DEFAULT_CONTROLLER_LEASE).split('/');
  const metrics = opts.metrics;
  // Every request of this replica, leader election included, is counted when metrics are wanted.
  const kc = metrics ? countingKubeConfig(opts.kc, (l) => metrics.countRequest(l)) : opts.kc;
  const identity = `${hostname()}-${randomBytes(3).toString('hex')}`;
  await ensureNamespace(kc, namespace, opts.log);
  let controller: ColonyController | undefined;
  let starting: Promise<void> | undefined;
  const elector = new LeaderElector({
    kc,
    namespace,
    name,
    identity,
    onStartedLeading: () => {
      opts.log.info({ identity, lease: opts.lease }, 'leading: starting the controller');
      const c = new ColonyController({
        kc,
        registry: opts.registry,
        identity,
        ...(opts.namespace ? { namespace: opts.namespace } : {}),
        ...(opts.rbacScope === 'offices' ? { namespaceSelector: LABEL_OFFICE } : {}),
        ...(metrics ? { metrics } : {}),
        ...(opts.resyncSeconds ? { resyncMs: opts.resyncSeconds * 1000 } : {}),
        ...(opts.workers ? { workers: opts.workers } : {}),
        ...opts.layers,
        log: opts.log,
      });
      controller = c;
      starting = c.start();
    },
    onStoppedLeading: () => {
      opts.log.warn({ identity }, 'lost the lease: stopping the controller');
      const c = controller;
      controller = undefined;
      void starting?.then(() => c?.stop());
    },
    onError: (err) => opts.log.warn({ err: (err as Error).message }, 'leader election round failed'),
  });
  elector.start();
  return {
    identity,
    isLeader: () => elector.isLeader(),
    isReady: () => !elector.isLeader() || (controller?.hasSynced() ?? false),
    current: () => controller,
    async stop() {
      const c = controller;
      await elector.stop();
      await starting;
      await c?.stop();
    },
  };
}

/** The Lease's namespace must exist; local clusters start without it. */
async function ensureNamespace(kc: KubeConfig, namespace: string, log: FastifyBaseLogger): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await core.readNamespace({ name: namespace });
  } catch (err) {
    if ((err as { code?: number }).code !== 404) throw err;
    log.info({ namespace }, 'creating the controller namespace');
    await core.createNamespace({ body: { metadata: { name: namespace } } }).catch((e: { code?: number }) => {
      if (e.code !== 409) throw e;
    });
  }
}
