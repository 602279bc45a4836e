// The controller: informers (view-informers.ts) feed two work queues, one of agents and one of
// Integrations, as the tables in watches.ts say; workers run the reconcilers on them.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { serverSideApplier } from '../cluster/apply.ts';
import { FIELD_MANAGER } from '../cluster/labels.ts';
import { VERSION } from '../cluster/version.ts';
import type { IntegrationRegistry } from '../integrations/registry/load-registry.ts';
import { UsageMeter } from './metering/usage-meter.ts';
import type { ControllerMetrics } from './metrics.ts';
import { reconcileAgent } from './reconcilers/agent.ts';
import type { AgentDeps } from './reconcilers/agent-deps.ts';
import type { ClusterView } from './reconcilers/cluster-view.ts';
import type { Fetcher, RetryPolicy } from './reconcilers/credential-check.ts';
import { type DatabaseLayer, postgresDatabaseLayer } from './reconcilers/database-layer.ts';
import { type IntegrationDeps, reconcileIntegration } from './reconcilers/integration.ts';
import { statusWriter } from './reconcilers/status-writer.ts';
import type { PodSecurity } from './render/pod-security.ts';
import { podSecurityOf } from './render/pod-security.ts';
import { type EventRecorder, eventRecorder, type RecordEvent } from './runtime/events.ts';
import { type Logger, silentLogger } from './runtime/logger.ts';
import type { SharedInformer } from './runtime/multi-namespace-informer.ts';
import type { Reconciler } from './runtime/reconcile.ts';
import { runWorker } from './runtime/reconcile-loop.ts';
import { WorkQueue } from './runtime/work-queue.ts';
import { clusterViewInformers } from './view-informers.ts';
import { wireEvents } from './watches.ts';

export interface ColonyControllerOptions {
  kc: KubeConfig;
  registry: IntegrationRegistry;
  workers?: number;
  resyncMs?: number;
  /** Names this replica in the Events it reports. */
  identity?: string;
  /** Watch one namespace only (namespaced mode); all namespaces when unset. */
  namespace?: string;
  /**
   * Watch only the namespaces this label selector matches, each on its own (offices mode: the
   * controller may read nothing cluster-wide but Namespaces).
   */
  namespaceSelector?: string;
  /** Where reconciles and failed lists or watches are logged; each reconcile gets a child logger. */
  log?: Logger;
  metrics?: ControllerMetrics;
  /** Image of the agents' colony-init container. */
  initImage?: string;
  /** securityContexts of the init container and service pods; unset parts stay restricted. */
  podSecurity?: Partial<PodSecurity> | undefined;
  /** Admin URL of the PostgreSQL server holding the offices' databases (database layer). */
  officeDatabaseUrl?: string | undefined;
  /** host:port agents use to reach that server, when it differs from the admin URL's. */
  officeDatabaseAgentHost?: string | undefined;
  /** Run the credentialCheck layer (default off: the entry points turn it on from COLONY_CREDENTIAL_CHECKS). */
  credentialChecks?: boolean;
  /** Image a per-office service runs instead of the one its manifest names (COLONY_IMAGE_OVERRIDES). */
  imageOverrides?: Readonly<Record<string, string>>;
  /** The credentialCheck layer's HTTP client (tests may pass their own). */
  fetcher?: Fetcher;
  /** Backoff of credential checks that could not reach the provider (tests shorten it). */
  credentialRetry?: RetryPolicy;
  /** Cache only the fields the reconcilers read (default on; off only to measure what it saves). */
  trimCache?: boolean;
  /** How often the usage meter counts agent pods into the offices' ledgers; 0 or unset: not at all. */
  meteringIntervalMs?: number;
}

/** The init image `npm run image` builds (Dockerfile target `init`); config sets the pinned one. */
export const DEFAULT_INIT_IMAGE = `colony-init:${VERSION}`;

type QueueName = 'agents' | 'integrations';

export class ColonyController {
  readonly agents = new WorkQueue();
  readonly integrations = new WorkQueue();
  readonly view: ClusterView;
  private readonly agentDeps: AgentDeps;
  private readonly integrationDeps: IntegrationDeps;
  private readonly opts: ColonyControllerOptions;
  private readonly log: Logger;
  private readonly events: EventRecorder;
  private readonly database: DatabaseLayer | undefined;
  private readonly kinds: Record<QueueName, string>;
  private running: Promise<void>[] = [];
  /** Counts agent-hours while this controller leads (metering/usage-meter.ts). */
  readonly meter: UsageMeter | undefined;

  constructor(opts: ColonyControllerOptions) {
    this.opts = opts;
    const log = opts.log ?? silentLogger;
    this.log = log;
    this.view = clusterViewInformers({
      ...opts,
      onError: (source, err) =>
        log.warn({ source, err: (err as Error).message }, 'list or watch failed; retrying with backoff'),
    });
    const applier = serverSideApplier(opts.kc, FIELD_MANAGER);
    const status = statusWriter(opts.kc, FIELD_MANAGER);
    const now = () => new Date();
    this.events = eventRecorder(opts.kc, 'colony.ai/controller', opts.identity ?? 'colony-controller');
    const security = podSecurityOf(opts.podSecurity);
    this.database = opts.officeDatabaseUrl
      ? postgresDatabaseLayer({
          adminUrl: opts.officeDatabaseUrl,
          agentHost: opts.officeDatabaseAgentHost,
          registry: opts.registry,
          view: this.view,
          applier,
          kc: opts.kc,
        })
      : undefined;
    this.agentDeps = {
      view: this.view,
      registry: opts.registry,
      applier,
      status,
      now,
      initImage: opts.initImage ?? DEFAULT_INIT_IMAGE,
      initSecurityContext: security.initContainer,
      credentialChecks: opts.credentialChecks ?? false,
      database: this.database,
    };
    this.integrationDeps = {
      view: this.view,
      registry: opts.registry,
      applier,
      status,
      kc: opts.kc,
      now,
      appliedClaims: new Set(),
      credentialChecks: opts.credentialChecks ?? false,
      imageOverrides: opts.imageOverrides ?? {},
      security,
      ...(opts.fetcher ? { fetcher: opts.fetcher } : {}),
      ...(opts.credentialRetry ? { credentialRetry: opts.credentialRetry } : {}),
    };
    this.meter = opts.meteringIntervalMs
      ? new UsageMeter({ kc: opts.kc, pods: this.view.pods, intervalMs: opts.meteringIntervalMs, log })
      : undefined;
    const specs = wireEvents(this.view, this);
    this.kinds = { agents: specs.agents.kind, integrations: specs.integrations.kind };
  }

  /** API writes so far (applies and status writes), for the no-op resync check and metrics. */
  get writes(): number {
    return this.agentDeps.applier.writes + this.agentDeps.status.writes;
  }

  /** Objects held in the informer caches, for the memory metric and the benchmark. */
  get cachedObjects(): number {
    return this.informers().reduce((sum, i) => sum + i.size, 0);
  }

  private informers(): SharedInformer<KubernetesObject>[] {
    return Object.values(this.view) as SharedInformer<KubernetesObject>[];
  }

  /** Records an Event; a failure is logged on the logger of the reconcile that asked for it. */
  private recorder(log: Logger): RecordEvent {
    return (o, type, reason, message) => {
      this.events
        .record(o, type, reason, message)
        .catch((err) =>
          log.warn({ object: o.metadata?.name, err: (err as Error).message }, 'recording an Event failed'),
        );
    };
  }

  /** Starts the informers, waits until every cache is synced, then starts the workers. */
  async start(): Promise<void> {
    for (const i of this.informers()) i.start();
    await Promise.all(this.informers().map((i) => i.waitForSync()));
    const workers = this.opts.workers ?? 2;
    const agent: Reconciler = (req, log) =>
      reconcileAgent({ ...this.agentDeps, recordEvent: this.recorder(log) }, req);
    const integration: Reconciler = (req, log) =>
      reconcileIntegration({ ...this.integrationDeps, recordEvent: this.recorder(log) }, req);
    this.running = [
      ...Array.from({ length: workers }, () => this.work('agents', agent)),
      ...Array.from({ length: workers }, () => this.work('integrations', integration)),
    ];
    this.meter?.start();
  }

  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  async stop(): Promise<void> {
    // Counted while the cache is still whole, so the next leader starts from current watermarks.
    await this.meter
      ?.stop()
      .catch((err) => this.log.warn({ err: (err as Error).message }, 'last usage pass failed'));
    for (const i of this.informers()) i.stop();
    this.agents.shutDown();
    this.integrations.shutDown();
    await Promise.all(this.running);
    await this.database?.close();
  }

  private work(queue: QueueName, reconcile: Reconciler): Promise<void> {
    const metrics = this.opts.metrics;
    return runWorker({
      kind: this.kinds[queue],
      queue: this[queue],
      reconcile,
      log: this.log,
      recorder: (log) => this.recorder(log),
      ...(metrics ? { observe: (seconds, ok) => metrics.observeReconcile(queue, seconds, ok) } : {}),
    });
  }
}
