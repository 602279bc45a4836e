// What the office-manager handlers share: the services the plugin is given, the cluster (503
// without one), the office behind a request (authenticated, scoped, bound) and the registry lookup.
import type { FastifyRequest } from 'fastify';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import type { Storage } from '../app-storage.ts';
import type { Entitlements } from '../commerce/entitlements/entitlements.ts';
import type { Config } from '../config.ts';
import type { ConnectService } from '../connect/connect-service.ts';
import type { IdentityServices } from '../identity/identity-services.ts';
import { authenticate, requireOffice, requireScope } from '../shared/authenticate.ts';
import type { CredentialVerifier } from '../shared/identity.ts';
import { ProblemError } from '../shared/problem.ts';
import type { OfficeCluster } from './office-cluster.ts';
import type { OfficeCreation } from './office-creation.ts';
import type { TaskScheduler } from './task-scheduler.ts';

/** The options of officePlugin: every service an office-manager route uses, and no other. */
export interface OfficeOptions {
  config: Config;
  verifiers: CredentialVerifier[];
  /** Office membership, for the owner check on creating and deleting an office. */
  identity: IdentityServices;
  registry: IntegrationRegistry;
  /** Tasks and Connect records. */
  storage: Storage;
  /** Present when a cluster is configured; every route answers 503 without it. */
  officeCluster: OfficeCluster | undefined;
  taskScheduler: TaskScheduler;
  connect: ConnectService;
  /** The plan checks of self-serve offices (limits, features) and their billing rows. */
  entitlements: Entitlements;
  /** Making and giving back offices, self-serve ones included. */
  officeCreation: OfficeCreation;
  now: () => number;
}

export type OfficeScope = 'offices:read' | 'offices:write';

export interface OfficeRouteContext extends OfficeOptions {
  /** The configured cluster, or a 503 problem. */
  cluster(): OfficeCluster;
  /** Authenticates, checks the scope and that the credential is bound to the office, finds its namespace. */
  office(request: FastifyRequest, officeId: string, scope?: OfficeScope): Promise<string>;
  /** The registry's definition of an integration, or a 404 problem. */
  definition(id: string): IntegrationManifest;
}

export function officeRouteContext(opts: OfficeOptions): OfficeRouteContext {
  const { config, verifiers, registry, officeCluster } = opts;
  const cluster = (): OfficeCluster => {
    if (!officeCluster)
      throw new ProblemError('service_unavailable', 'No Kubernetes cluster is configured (set KUBECONFIG).');
    return officeCluster;
  };
  return {
    ...opts,
    cluster,
    async office(request, officeId, scope = 'offices:write') {
      const principal = await authenticate(request, config.baseUrl, verifiers);
      requireScope(principal, scope, config.baseUrl);
      requireOffice(principal, officeId);
      const ns = await cluster().officeNamespace(officeId);
      if (!ns)
        throw new ProblemError(
          'not_found',
          `No office ${officeId}: no namespace is labelled colony.ai/office=${officeId}.`,
        );
      return ns;
    },
    definition(id) {
      const m = registry.get(id);
      if (!m) throw new ProblemError('not_found', `No integration ${id} in the registry.`);
      return m;
    },
  };
}
