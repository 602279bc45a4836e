// Every service buildServer() builds: the composition root's record. The mount table (api/routes.ts) hands each
// surface only what it uses; the record is also decorated as `app.colony` for the commerce surfaces and tests.

import type { KubeConfig } from '@kubernetes/client-node';
import type { IntegrationRegistry } from '../integrations/registry/load-registry.ts';
import type { Storage } from './app-storage.ts';
import type { BackupServices } from './backups/backup-services.ts';
import type { CommerceServices } from './commerce/commerce-services.ts';
import type { Entitlements } from './commerce/entitlements/entitlements.ts';
import type { UsageServices } from './commerce/usage/usage-services.ts';
import type { Config } from './config.ts';
import type { ConnectService } from './connect/connect-service.ts';
import type { TokenRefresher } from './connect/token-refresher.ts';
import type { JobHandler, JobRunner } from './domain/jobs/job-runner.ts';
import type { CatalogItem } from './domain/pricing/catalog.ts';
import type { PriceList } from './domain/pricing/price-list.ts';
import type { Probe } from './domain/status/probes.ts';
import type { IdentityServices } from './identity/identity-services.ts';
import type { Metrics } from './observability/metrics.ts';
import type { OfficeCluster } from './office/office-cluster.ts';
import type { OfficeCreation } from './office/office-creation.ts';
import type { TaskScheduler } from './office/task-scheduler.ts';
import type { CredentialVerifier } from './shared/identity.ts';
import type { PollerGate } from './shared/poller-gate.ts';
import type { RateLimiter } from './shared/rate-limit/rate-limiter.ts';

export interface AppServices {
  config: Config;
  storage: Storage;
  prices: PriceList;
  catalog: CatalogItem[];
  probes: () => Probe[];
  jobHandlers: Record<string, JobHandler<never>>;
  jobRunner: JobRunner;
  /** Credentials for the API resource (the base URL): /api/v1, /api/snapshots, the manager API. */
  verifiers: CredentialVerifier[];
  /** Credentials for the MCP resource (`/mcp`); OAuth tokens issued for the API are accepted too. */
  mcpVerifiers: CredentialVerifier[];
  /** Accounts, sessions and office membership (api/identity). */
  identity: IdentityServices;
  registry: IntegrationRegistry;
  /** The configured cluster, loaded once; undefined without KUBECONFIG or COLONY_IN_CLUSTER. */
  kubeConfig: KubeConfig | undefined;
  /** Present when a cluster is configured; the office-manager API answers 503 without it. */
  officeCluster: OfficeCluster | undefined;
  /** Snapshots and restores of offices (api/backups). */
  backups: BackupServices;
  /** What each office's plan allows (api/commerce/entitlements); operator-managed offices: everything. */
  entitlements: Entitlements;
  /** Making and giving back offices: by a cluster admin, an owner, or self-serve with a plan. */
  officeCreation: OfficeCreation;
  /** Files integrations' task templates into office task queues. */
  taskScheduler: TaskScheduler;
  /** Starts the cluster-wide pollers on the replica that should run them. */
  pollers: PollerGate;
  /** The OAuth Connect flow (api/connect) and the refresher that keeps its tokens fresh. */
  connect: ConnectService;
  tokenRefresher: TokenRefresher;
  apiLimiter: RateLimiter;
  /** Checkout domain, checkout rate limit and URLs shared by ACP, UCP and the billing page. */
  commerce: CommerceServices;
  /** Metered usage: per account for /me and /account, and the reporter to the processor. */
  usage: UsageServices;
  metrics: Metrics;
  /** A per-process secret marking requests that POST /api/v1/batch makes on a caller's behalf. */
  batchSecret: string;
  now: () => number;
}

declare module 'fastify' {
  interface FastifyInstance {
    colony: AppServices;
  }
}
