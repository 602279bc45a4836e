// The controller: informers feed two work queues, one of agents and one of Integrations; workers
// run the reconcilers on them (which events enqueue which keys: watches.ts).
import type {
  KubeConfig,
  KubernetesObject,
  V1Deployment,
  V1Namespace,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { serverSideApplier } from '../cluster/apply.ts';
import { API_VERSION } from '../cluster/crds/crds.ts';
import {
  FIELD_MANAGER,
  LABEL_AGENT,
  LABEL_INTEGRATION,
  LABEL_MANAGED_BY,
  MANAGED_BY,
} from '../cluster/labels.ts';
import { VERSION } from '../cluster/version.ts';
import type { IntegrationRegistry } from '../integrations/registry/load-registry.ts';
import type { ControllerMetrics } from './metrics.ts';
import { type AgentDeps, reconcileAgent } from './reconcilers/agent.ts';
import {
  cachedBinding,
  cachedIntegration,
  cachedPod,
  cachedSecret,
  cachedService,
  cachedServiceDeployment,
  cachedWorkload,
} from './reconcilers/cached-fields.ts';
import { type ClusterView, indexClusterView } from './reconcilers/cluster-view.ts';
import type { Fetcher, RetryPolicy } from './reconcilers/credential-check.ts';
import { type DatabaseLayer, postgresDatabaseLayer } from './reconcilers/database-layer.ts';
import { type IntegrationDeps, reconcileIntegration } from './reconcilers/integration.ts';
import type { PodSecurity } from './render/pod-security.ts';
import { podSecurityOf } from './render/pod-security.ts';
import { eventRecorder } from './runtime/events.ts';
import { Informer } from './runtime/informer.ts';
import { listWatchSource } from './runtime/list-watch-source.ts';
import { MultiNamespaceInformer, type SharedInformer } from './runtime/multi-namespace-informer.ts';
import { statusWriter } from './runtime/status-writer.ts';
import { WorkQueue } from './runtime/work-queue.ts';
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
  onError?: (key: string, err: unknown) => void;
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
}

/** The init image `npm run image` builds (Dockerfile target `init`); config sets the pinned one. */
export const DEFAULT_INIT_IMAGE = `colony-init:${VERSION}`;

export class ColonyController {
  readonly agents = new WorkQueue();
  readonly integrations = new WorkQueue();
  readonly view: ClusterView;
  private readonly agentDeps: AgentDeps;
  private readonly integrationDeps: IntegrationDeps;
  private readonly opts: ColonyControllerOptions;
  private readonly database: DatabaseLayer | undefined;
  private running: Promise<void>[] = [];

  constructor(opts: ColonyControllerOptions) {
    this.opts = opts;
    const scope = opts.namespace;
    const trim = opts.trimCache ?? true;
    const informer = <T extends KubernetesObject>(
      apiVersion: string,
      kind: string,
      plural: string,
      labelSelector: string | undefined,
      namespace: string | undefined,
      onError: (err: unknown) => void,
      transform: ((obj: T) => T) | undefined,
    ) => {
      const prefix = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
      const path = namespace ? `${prefix}/namespaces/${namespace}/${plural}` : `${prefix}/${plural}`;
      const ref = {
        apiVersion,
        kind,
        path,
        ...(namespace ? { namespace } : {}),
        ...(labelSelector ? { labelSelector } : {}),
      };
      return new Informer<T>(listWatchSource<T>(opts.kc, ref), {
        resyncMs: opts.resyncMs ?? 300_000,
        onError,
        ...(transform ? { transform } : {}),
      });
    };
    // Offices mode: the namespaces to watch, one informer per namespace and resource.
    const selected = opts.namespaceSelector
      ? new Informer<V1Namespace>(
          listWatchSource<V1Namespace>(opts.kc, {
            apiVersion: 'v1',
            kind: 'Namespace',
            path: '/api/v1/namespaces',
            labelSelector: opts.namespaceSelector,
          }),
          { onError: (err) => opts.onError?.('informer namespaces', err) },
        )
      : undefined;
    const inf = <T extends KubernetesObject>(
      [apiVersion, kind, plural]: [string, string, string],
      transform: (obj: T) => T,
      labelSelector?: string,
    ): SharedInformer<T> => {
      // A list the RBAC forbids would otherwise retry in silence and leave readiness at "syncing".
      const onError = (err: unknown) => opts.onError?.(`informer ${plural}`, err);
      const t = trim ? transform : undefined;
      if (!selected) return informer<T>(apiVersion, kind, plural, labelSelector, scope, onError, t);
      return new MultiNamespaceInformer<T>({
        namespaces: selected,
        create: (ns, failed) => informer<T>(apiVersion, kind, plural, labelSelector, ns, failed, t),
        onError: (ns, err) => opts.onError?.(`informer ${plural} in ${ns}`, err),
      });
    };
    const owned = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;
    this.view = {
      bindings: inf([API_VERSION, 'AgentBinding', 'agentbindings'], cachedBinding),
      integrations: inf([API_VERSION, 'Integration', 'integrations'], cachedIntegration),
      secrets: inf(['v1', 'Secret', 'secrets'], cachedSecret, owned),
      deployments: inf<V1Deployment>(['apps/v1', 'Deployment', 'deployments'], cachedWorkload, LABEL_AGENT),
      statefulSets: inf<V1StatefulSet>(
        ['apps/v1', 'StatefulSet', 'statefulsets'],
        cachedWorkload,
        LABEL_AGENT,
      ),
      serviceDeployments: inf(
        ['apps/v1', 'Deployment', 'deployments'],
        cachedServiceDeployment,
        `${owned},${LABEL_INTEGRATION}`,
      ),
      services: inf(['v1', 'Service', 'services'], cachedService, `${owned},${LABEL_INTEGRATION}`),
      pods: inf(['v1', 'Pod', 'pods'], cachedPod, LABEL_AGENT),
    };
    indexClusterView(this.view);
    const applier = serverSideApplier(opts.kc, FIELD_MANAGER);
    const status = statusWriter(opts.kc, FIELD_MANAGER);
    const now = () => new Date();
    const events = eventRecorder(opts.kc, 'colony.ai/controller', opts.identity ?? 'colony-controller');
    const recordEvent = (
      o: KubernetesObject,
      type: 'Normal' | 'Warning',
      reason: string,
      message: string,
    ) => {
      events
        .record(o, type, reason, message)
        .catch((err) => opts.onError?.(`event ${o.metadata?.name}`, err));
    };
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
      recordEvent,
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
      recordEvent,
      ...(opts.fetcher ? { fetcher: opts.fetcher } : {}),
      ...(opts.credentialRetry ? { credentialRetry: opts.credentialRetry } : {}),
    };
    wireEvents(this.view, this);
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

  /** Starts the informers, waits until every cache is synced, then starts the workers. */
  async start(): Promise<void> {
    for (const i of this.informers()) i.start();
    await Promise.all(this.informers().map((i) => i.waitForSync()));
    const workers = this.opts.workers ?? 2;
    this.running = [
      ...Array.from({ length: workers }, () =>
        this.work('agents', this.agents, (ns, n) =>
          reconcileAgent(this.agentDeps, ns, n).then(() => undefined),
        ),
      ),
      ...Array.from({ length: workers }, () =>
        this.work('integrations', this.integrations, (ns, n) =>
          reconcileIntegration(this.integrationDeps, ns, n),
        ),
      ),
    ];
  }

  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  async stop(): Promise<void> {
    for (const i of this.informers()) i.stop();
    this.agents.shutDown();
    this.integrations.shutDown();
    await Promise.all(this.running);
    await this.database?.close();
  }

  /** One worker: take a key, reconcile it, retry with backoff on failure. */
  private async work(
    queueName: string,
    queue: WorkQueue,
    reconcile: (ns: string, name: string) => Promise<{ requeueAfterMs?: number } | undefined>,
  ): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      const [ns = '', name = ''] = key.split('/');
      const started = performance.now();
      let ok = false;
      try {
        const result = await reconcile(ns, name);
        ok = true;
        queue.forget(key);
        // A re-check the reconciler asked for (a credential check retried with backoff).
        if (result?.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
      } catch (err) {
        this.opts.onError?.(key, err);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
        this.opts.metrics?.observeReconcile(queueName, (performance.now() - started) / 1000, ok);
      }
    }
  }
}
