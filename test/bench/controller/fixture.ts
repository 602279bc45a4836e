// The controller benchmark's cluster: offices (namespaces) with one configured integration, agents
// (StatefulSets without replicas) and an enabled AgentBinding per agent, all labelled with the run
// id so they can be found and removed.
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type KubeConfig,
  type KubernetesObject,
  type V1Namespace,
  type V1StatefulSet,
} from '@kubernetes/client-node';
import { OfficeCluster } from '../../../api/office/office-cluster.ts';
import { GROUP, VERSION } from '../../../cluster/crds/crds.ts';
import { renderIntegrationSecret } from '../../../cluster/integration-secret.ts';
import type { IntegrationRegistry } from '../../../integrations/registry/load-registry.ts';
import { onKwokNodes } from '../../support/kube.ts';

export const BENCH_LABEL = 'colony.ai/bench';

export interface Agent {
  namespace: string;
  office: string;
  name: string;
}

/** Runs fn over items with at most `concurrency` calls in flight. */
export async function inPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

function statefulSet(name: string, runId: string): V1StatefulSet {
  return {
    metadata: { name, labels: { 'colony.ai/agent': name, [BENCH_LABEL]: runId } },
    spec: {
      serviceName: name,
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image: 'busybox', env: [{ name: 'OWN', value: '1' }] }] },
      },
    },
  };
}

export class BenchCluster {
  readonly agents: Agent[] = [];
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly office: OfficeCluster;
  private readonly custom: CustomObjectsApi;
  private readonly events: EventsV1Api;
  private readonly kc: KubeConfig;
  private readonly registry: IntegrationRegistry;
  readonly runId: string;

  constructor(kc: KubeConfig, registry: IntegrationRegistry, runId: string) {
    this.kc = kc;
    this.registry = registry;
    this.runId = runId;
    this.core = kc.makeApiClient(CoreV1Api);
    this.apps = kc.makeApiClient(AppsV1Api);
    this.office = new OfficeCluster(kc);
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.events = kc.makeApiClient(EventsV1Api);
  }

  private manifest(id: string) {
    const m = this.registry.get(id);
    if (!m) throw new Error(`${id} is missing from the registry`);
    return m;
  }

  /**
   * `offices` namespaces (numbered from `first`), each with the openai integration configured and
   * `perOffice` agents; returns the new agents.
   */
  async createOffices(offices: number, perOffice: number, concurrency: number, first = 0): Promise<Agent[]> {
    const ids = Array.from({ length: offices }, (_, i) => first + i);
    const created: Agent[] = [];
    await inPool(ids, concurrency, async (i) => {
      const office = `o${i}`;
      const namespace = `cbench-${this.runId}-${i}`;
      const ns: V1Namespace = {
        metadata: {
          name: namespace,
          labels: { 'colony.ai/office': office, [BENCH_LABEL]: this.runId },
          annotations: onKwokNodes,
        },
      };
      await this.core.createNamespace({ body: ns });
      const secretName = `openai-${office}`;
      await this.office.saveSecret(
        renderIntegrationSecret({
          manifest: this.manifest('openai'),
          officeId: office,
          namespace,
          secretName,
          data: { OPENAI_API_KEY: `sk-bench-${i}` },
        }),
      );
      await this.office.saveIntegration(namespace, 'openai', {
        integrationId: 'openai',
        officeId: office,
        secretName,
      });
      for (let a = 0; a < perOffice; a++) created.push({ namespace, office, name: `agent-${a}` });
    });
    await inPool(created, concurrency, (agent) =>
      this.apps.createNamespacedStatefulSet({
        namespace: agent.namespace,
        body: statefulSet(agent.name, this.runId),
      }),
    );
    this.agents.push(...created);
    return created;
  }

  toggle(agent: Agent, enabled: boolean) {
    return this.office.saveBinding(
      agent.namespace,
      `${agent.name}-openai`,
      { agentName: agent.name, integrationId: 'openai', secretName: `openai-${agent.office}`, enabled },
      agent.office,
    );
  }

  /**
   * When the controller last wrote each object of this run (templates, bindings, Integrations, from
   * their managedFields, status included), plus the number of its Events: what moves was written.
   * resourceVersions would not do: the StatefulSet controller updates statuses on its own.
   */
  async writtenState(manager: string): Promise<{ versions: Map<string, string>; events: number }> {
    const mine = (o: KubernetesObject) => o.metadata?.namespace?.startsWith(`cbench-${this.runId}-`) ?? false;
    const versions = new Map<string, string>();
    const note = (kind: string, items: KubernetesObject[]) => {
      for (const o of items.filter(mine)) {
        const times = (o.metadata?.managedFields ?? [])
          .filter((f) => f.manager === manager)
          .map((f) => new Date(f.time ?? 0).toISOString())
          .sort();
        versions.set(`${kind}/${o.metadata?.namespace}/${o.metadata?.name}`, times.join(','));
      }
    };
    const selector = `${BENCH_LABEL}=${this.runId}`;
    note('statefulset', (await this.apps.listStatefulSetForAllNamespaces({ labelSelector: selector })).items);
    for (const plural of ['agentbindings', 'integrations']) {
      const list = (await this.custom.listClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural,
      })) as {
        items: KubernetesObject[];
      };
      note(plural, list.items);
    }
    const events = await this.events.listEventForAllNamespaces({
      fieldSelector: 'reportingController=colony.ai/controller',
    });
    return { versions, events: events.items.filter(mine).length };
  }

  /** Deletes the run's namespaces; the API server finishes the cascade in the background. */
  async dispose(): Promise<void> {
    const list = await this.core.listNamespace({ labelSelector: `${BENCH_LABEL}=${this.runId}` });
    await inPool(list.items, 10, (ns) => this.core.deleteNamespace({ name: ns.metadata?.name ?? '' }));
  }

  get kubeConfig(): KubeConfig {
    return this.kc;
  }
}
