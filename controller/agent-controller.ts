// Wires informers to a work queue of agents and runs the agent reconciler on it: every change to a
// binding, an Integration, a Secret or an agent workload re-reconciles the agents it concerns.
import type {
  KubeConfig,
  KubernetesObject,
  V1Deployment,
  V1Secret,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { AgentBindingObject, IntegrationObject } from '../api/office/office-cluster.ts';
import type { IntegrationRegistry } from '../integrations/registry/load-registry.ts';
import { API_VERSION, GROUP, VERSION } from './api/crds.ts';
import { type AgentDeps, reconcileAgent } from './reconcilers/agent.ts';
import type { ClusterView } from './reconcilers/cluster-view.ts';
import { FIELD_MANAGER, LABEL_AGENT, LABEL_MANAGED_BY, MANAGED_BY } from './render/labels.ts';
import { serverSideApplier } from './runtime/apply.ts';
import { Informer } from './runtime/informer.ts';
import { listWatchSource } from './runtime/list-watch-source.ts';
import { statusWriter } from './runtime/status-writer.ts';
import { WorkQueue } from './runtime/work-queue.ts';

export interface AgentControllerOptions {
  kc: KubeConfig;
  registry: IntegrationRegistry;
  workers?: number;
  resyncMs?: number;
  onError?: (key: string, err: unknown) => void;
}

const agentKey = (ns: string | undefined, agent: string | undefined) =>
  ns && agent ? `${ns}/${agent}` : undefined;

export class AgentController {
  readonly queue = new WorkQueue();
  readonly view: ClusterView;
  private readonly deps: AgentDeps;
  private readonly opts: AgentControllerOptions;
  private running: Promise<void>[] = [];

  constructor(opts: AgentControllerOptions) {
    this.opts = opts;
    const inf = <T extends KubernetesObject>(
      apiVersion: string,
      kind: string,
      path: string,
      labelSelector?: string,
    ) =>
      new Informer<T>(
        listWatchSource<T>(opts.kc, { apiVersion, kind, path, ...(labelSelector ? { labelSelector } : {}) }),
        {
          resyncMs: opts.resyncMs ?? 300_000,
        },
      );
    this.view = {
      bindings: inf<AgentBindingObject>(
        API_VERSION,
        'AgentBinding',
        `/apis/${GROUP}/${VERSION}/agentbindings`,
      ),
      integrations: inf<IntegrationObject>(
        API_VERSION,
        'Integration',
        `/apis/${GROUP}/${VERSION}/integrations`,
      ),
      secrets: inf<V1Secret>('v1', 'Secret', '/api/v1/secrets', `${LABEL_MANAGED_BY}=${MANAGED_BY}`),
      deployments: inf<V1Deployment>('apps/v1', 'Deployment', '/apis/apps/v1/deployments', LABEL_AGENT),
      statefulSets: inf<V1StatefulSet>('apps/v1', 'StatefulSet', '/apis/apps/v1/statefulsets', LABEL_AGENT),
    };
    this.deps = {
      view: this.view,
      registry: opts.registry,
      applier: serverSideApplier(opts.kc, FIELD_MANAGER),
      status: statusWriter(opts.kc, FIELD_MANAGER),
      now: () => new Date(),
    };
    this.wireEvents();
  }

  get writes(): number {
    return this.deps.applier.writes + this.deps.status.writes;
  }

  /** Maps every event to the agents it can affect; reconciles read current state, not the event. */
  private wireEvents(): void {
    const add = (key: string | undefined) => key && this.queue.add(key);
    const agentsUsingSecret = (ns: string | undefined, secretName: string | undefined) => {
      for (const b of this.view.bindings.list()) {
        if (b.metadata?.namespace === ns && b.spec.secretName === secretName)
          add(agentKey(ns, b.spec.agentName));
      }
    };
    const onBinding = (b: AgentBindingObject) => add(agentKey(b.metadata?.namespace, b.spec.agentName));
    this.view.bindings.on({
      add: onBinding,
      update: (b, old) => {
        // A binding moved to another agent must be reconciled on both.
        onBinding(b);
        onBinding(old);
      },
      delete: onBinding,
    });
    const onWorkload = (w: KubernetesObject) =>
      add(agentKey(w.metadata?.namespace, w.metadata?.labels?.[LABEL_AGENT]));
    for (const informer of [this.view.deployments, this.view.statefulSets] as Informer<KubernetesObject>[]) {
      informer.on({ add: onWorkload, update: onWorkload, delete: onWorkload });
    }
    const onSecret = (s: V1Secret) => agentsUsingSecret(s.metadata?.namespace, s.metadata?.name);
    this.view.secrets.on({ add: onSecret, update: onSecret, delete: onSecret });
    const onIntegration = (i: IntegrationObject) =>
      agentsUsingSecret(i.metadata?.namespace, i.spec.secretName);
    this.view.integrations.on({ add: onIntegration, update: onIntegration, delete: onIntegration });
  }

  private informers(): Informer<KubernetesObject>[] {
    return Object.values(this.view) as Informer<KubernetesObject>[];
  }

  /** Starts the informers, waits until every cache is synced, then starts the workers. */
  async start(): Promise<void> {
    for (const i of this.informers()) i.start();
    await Promise.all(this.informers().map((i) => i.waitForSync()));
    this.running = Array.from({ length: this.opts.workers ?? 2 }, () => this.work());
  }

  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  async stop(): Promise<void> {
    for (const i of this.informers()) i.stop();
    this.queue.shutDown();
    await Promise.all(this.running);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const [ns = '', agent = ''] = key.split('/');
      try {
        await reconcileAgent(this.deps, ns, agent);
        this.queue.forget(key);
      } catch (err) {
        this.opts.onError?.(key, err);
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }
}
