// The controller's options, read from the one Colony config: both entry points run it with these.
import type { KubeConfig } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from '../api/config.ts';
import { createControllerMetrics } from '../controller/metrics.ts';
import type { RunControllerOptions } from '../controller/run-controller.ts';
import type { IntegrationRegistry } from '../integrations/registry/load-registry.ts';

export function controllerOptions(
  config: Config,
  deps: { kc: KubeConfig; registry: IntegrationRegistry; log: FastifyBaseLogger; metrics: Registry },
): RunControllerOptions {
  const k = config.kubernetes;
  return {
    kc: deps.kc,
    registry: deps.registry,
    lease: k.controllerLease,
    log: deps.log,
    namespace: k.watchNamespace,
    rbacScope: k.rbacScope,
    resyncSeconds: k.resyncSeconds,
    workers: k.workers,
    layers: {
      initImage: k.initImage,
      podSecurity: k.podSecurity,
      credentialChecks: k.credentialChecks,
      imageOverrides: k.imageOverrides,
      officeDatabaseUrl: k.officeDatabaseUrl,
      officeDatabaseAgentHost: k.officeDatabaseAgentHost,
      trimCache: k.trimCache,
      meteringIntervalMs: k.meteringSeconds * 1000,
    },
    metrics: createControllerMetrics(deps.metrics),
  };
}
