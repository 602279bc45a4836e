// The controller: informers feed two work queues, one of agents and one of Integrations; workers
// run the reconcilers on them. Every change is mapped to the keys it can affect, and reconcilers
// read current state from the caches, never the event.
import type {
  KubeConfig,
  KubernetesObject,
  V1Deployment,
  V1Namespace,
  V1Pod,
  V1Secret,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { serverSideApplier } from '../cluster/apply.ts';
import { API_VERSION } from '../cluster/crds/crds.ts';
import {
  FIELD_MANAGER,
  LABEL_AGENT,
  LABEL_GENERATED,
  LABEL_INSTANCE,
  LABEL_INTEGRATION,
  LABEL_MANAGED_BY,
  MANAGED_BY,
} from '../cluster/labels.ts';
import type { AgentBindingObject, IntegrationObject } from '../cluster/objects.ts';
import { integrationResourceName } from '../cluster/registration.ts';
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
import {
  bindingsOfSecret,
  type ClusterView,
  indexClusterView,
  integrationsOfSecret,
} from './reconcilers/cluster-view.ts';
import type { Fetcher, RetryPolicy } from './reconcilers/credential-check.ts';
import { type DatabaseLayer, postgresDatabaseLayer } from './reconcilers/database-layer.ts';
import { type IntegrationDeps, reconcileIntegration } from './reconcilers/integration.ts';
import { replicaFailure } from './reconcilers/replica-failure.ts';
import { INIT_CONTAINER } from './render/init-script.ts';
import type { PodSecurity } from './render/pod-security.ts';
import { podSecurityOf } from './render/pod-security.ts';
import { eventRecorder } from './runtime/events.ts';
import { Informer } from './runtime/informer.ts';
import { listWatchSource } from './runtime/list-watch-source.ts';
import { MultiNamespaceInformer, type SharedInformer } from './runtime/multi-namespace-informer.ts';
import { statusWriter } from './runtime/status-writer.ts';
import { WorkQueue } from './runtime/work-queue.ts';

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

const keyOf = (ns: string | undefined, name: string | undefined) =>
  ns && name ? `${ns}/${name}` : undefined;

/**
 * Whether an update can change what the reconcilers decide: the spec (generation), labels,
 * annotations or deletion. Status-only updates, including the ones our own status writes and the
 * workload controllers cause, are skipped. A resync delivers the same object twice and always counts.
 */
export function worthReconciling(obj: KubernetesObject, old: KubernetesObject): boolean {
  if (obj === old) return true;
  const a = obj.metadata;
  const b = old.metadata;
  return (
    a?.generation !== b?.generation ||
    a?.deletionTimestamp !== b?.deletionTimestamp ||
    JSON.stringify(a?.labels ?? {}) !== JSON.stringify(b?.labels ?? {}) ||
    JSON.stringify(a?.annotations ?? {}) !== JSON.stringify(b?.annotations ?? {})
  );
}

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
    this.wireEvents();
  }

  /** API writes so far (applies and status writes), for the no-op resync check and metrics. */
  get writes(): number {
    return this.agentDeps.applier.writes + this.agentDeps.status.writes;
  }

  private wireEvents(): void {
    // Set while a periodic resync is being delivered (the informer hands over the same object as
    // old and new): what it enqueues waits behind real changes.
    let resyncing = false;
    const agent = (key: string | undefined) => key && this.agents.add(key, resyncing);
    const integration = (key: string | undefined) => key && this.integrations.add(key, resyncing);
    const update =
      <T extends KubernetesObject>(fn: (obj: T, old: T) => unknown) =>
      (obj: T, old: T) => {
        resyncing = obj === old;
        try {
          fn(obj, old);
        } finally {
          resyncing = false;
        }
      };
    const usersOfSecret = (ns: string | undefined, secretName: string | undefined) => {
      if (!ns || !secretName) return;
      for (const b of bindingsOfSecret(this.view, ns, secretName)) agent(keyOf(ns, b.spec.agentName));
      for (const i of integrationsOfSecret(this.view, ns, secretName))
        integration(keyOf(ns, i.metadata?.name));
    };
    // A binding concerns its own agent and the Integration that counts its agents; the other
    // agents sharing the Secret are unaffected (fanning out to them made every resync O(n^2)).
    const onBinding = (b: AgentBindingObject) => {
      const ns = b.metadata?.namespace;
      agent(keyOf(ns, b.spec.agentName));
      if (!ns) return;
      for (const i of integrationsOfSecret(this.view, ns, b.spec.secretName))
        integration(keyOf(ns, i.metadata?.name));
    };
    this.view.bindings.on({
      add: onBinding,
      update: update<AgentBindingObject>((b, old) => {
        if (!worthReconciling(b, old)) return;
        // A binding moved to another agent or Secret must be reconciled on both sides.
        onBinding(b);
        onBinding(old);
      }),
      delete: onBinding,
    });
    const onIntegration = (i: IntegrationObject) => {
      integration(keyOf(i.metadata?.namespace, i.metadata?.name));
      usersOfSecret(i.metadata?.namespace, i.spec.secretName);
    };
    // A credential check's verdict is status, but it decides whether agents get the integration.
    const checkChanged = (i: IntegrationObject, old: IntegrationObject) =>
      JSON.stringify(i.status?.credentialCheck ?? null) !==
      JSON.stringify(old.status?.credentialCheck ?? null);
    this.view.integrations.on({
      add: onIntegration,
      update: update<IntegrationObject>(
        (i, old) => (worthReconciling(i, old) || checkChanged(i, old)) && onIntegration(i),
      ),
      delete: onIntegration,
    });
    // Generated Secrets (credential files, database credentials) concern the users of their source.
    const sourceOf = (s: V1Secret) => {
      const name = s.metadata?.name ?? '';
      if (s.metadata?.labels?.[LABEL_GENERATED] !== 'true') return name;
      return name.endsWith('-files') ? name.slice(0, -'-files'.length) : name;
    };
    const onSecret = (s: V1Secret) => {
      usersOfSecret(s.metadata?.namespace, sourceOf(s));
      const binding = s.metadata?.ownerReferences?.find((o) => o.kind === 'AgentBinding');
      const b = binding ? this.view.bindings.get(`${s.metadata?.namespace}/${binding.name}`) : undefined;
      if (b) agent(keyOf(s.metadata?.namespace, b.spec.agentName));
    };
    this.view.secrets.on({ add: onSecret, update: update<V1Secret>(onSecret), delete: onSecret });
    const onWorkload = (w: KubernetesObject) =>
      agent(keyOf(w.metadata?.namespace, w.metadata?.labels?.[LABEL_AGENT]));
    const onServiceObject = (o: KubernetesObject) => {
      const labels = o.metadata?.labels ?? {};
      const id = labels[LABEL_INTEGRATION];
      if (id) integration(keyOf(o.metadata?.namespace, integrationResourceName(id, labels[LABEL_INSTANCE])));
    };
    // Whether a service's pods can be created is part of its agents' bindings too.
    const onServiceHealth = (d: V1Deployment, old: V1Deployment) => {
      if (d !== old && replicaFailure(d) === replicaFailure(old)) return;
      const labels = d.metadata?.labels ?? {};
      const id = labels[LABEL_INTEGRATION];
      const ns = d.metadata?.namespace;
      const i =
        id && ns
          ? this.view.integrations.get(`${ns}/${integrationResourceName(id, labels[LABEL_INSTANCE])}`)
          : undefined;
      if (i) usersOfSecret(ns, i.spec.secretName);
    };
    for (const informer of [
      this.view.deployments,
      this.view.statefulSets,
    ] as SharedInformer<KubernetesObject>[]) {
      informer.on({
        add: onWorkload,
        // ReplicaFailure is status, but it is what the agent's bindings report when pods are refused.
        update: update(
          (w, old) =>
            (worthReconciling(w, old) ||
              replicaFailure(w as V1Deployment) !== replicaFailure(old as V1Deployment)) &&
            onWorkload(w),
        ),
        delete: onWorkload,
      });
    }
    // Only a change in the colony-init container's outcome matters for a pod.
    const initState = (p: V1Pod) =>
      JSON.stringify(
        p.status?.initContainerStatuses?.find((c) => c.name === INIT_CONTAINER)?.state?.terminated
          ?.exitCode ?? null,
      ) +
      JSON.stringify(
        p.status?.initContainerStatuses?.find((c) => c.name === INIT_CONTAINER)?.lastState?.terminated
          ?.exitCode ?? null,
      );
    this.view.pods.on({
      add: onWorkload,
      update: update<V1Pod>((p, old) => (p === old || initState(p) !== initState(old)) && onWorkload(p)),
      delete: onWorkload,
    });
    // The per-office service's readiness is part of the Integration's status: every change counts.
    for (const informer of [
      this.view.serviceDeployments,
      this.view.services,
    ] as SharedInformer<KubernetesObject>[]) {
      informer.on({ add: onServiceObject, update: update(onServiceObject), delete: onServiceObject });
    }
    this.view.serviceDeployments.on({ update: update<V1Deployment>(onServiceHealth) });
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
