// Every agent workload's pods carry colony.ai/agent, so the usage meter counts them: on a real
// control plane (pods on kwok nodes), agents without colony-init get the label on their pod template
// once, their pods roll and are counted; a template that names another value keeps it, and workloads
// that are not agents are left alone.
import { AppsV1Api, CoreV1Api, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { readLedger, USAGE_CONFIGMAP } from '../../cluster/usage-ledger.ts';
import { ColonyController } from '../../controller/colony-controller.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { agentStatefulSet } from '../support/agents.ts';
import { eventually } from '../support/eventually.ts';
import { configureIntegration } from '../support/integrations.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';

const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
const office = 'acme';
const apps = () => kubeConfig().makeApiClient(AppsV1Api);
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const cluster = () => new OfficeCluster(kubeConfig());
let ns: Awaited<ReturnType<typeof withNamespace>>;
let controller: ColonyController;

/** A Deployment selecting its pods by `selector` alone; `agent` labels the Deployment itself. */
function deployment(name: string, selector: Record<string, string>, agent?: string): V1Deployment {
  return {
    metadata: { name, labels: agent ? { 'colony.ai/agent': agent } : {} },
    spec: {
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: selector },
        spec: {
          terminationGracePeriodSeconds: 0,
          // 2 vCPU and 1 GiB weigh two standard pods.
          containers: [
            { name: 'agent', image: 'busybox', resources: { requests: { cpu: '2', memory: '1Gi' } } },
          ],
        },
      },
    },
  };
}

async function enableOpenAi(agentName: string) {
  const data = { OPENAI_API_KEY: 'sk-1' };
  const secretName = await configureIntegration(registry, { namespace: ns.name, office, id: 'openai', data });
  await cluster().saveBinding(
    ns.name,
    `${agentName}-openai`,
    { agentName, integrationId: 'openai', secretName, enabled: true },
    office,
  );
}

const template = async (name: string) =>
  (await apps().readNamespacedDeployment({ name, namespace: ns.name })).spec?.template;

/** The namespace's Running pods with a start time, by the value of `label` (absent: ''). */
async function runningPods(label: string): Promise<Map<string, V1Pod[]>> {
  const out = new Map<string, V1Pod[]>();
  for (const p of (await core().listNamespacedPod({ namespace: ns.name })).items) {
    if (p.status?.phase !== 'Running' || !p.status.startTime || p.metadata?.deletionTimestamp) continue;
    const key = p.metadata?.labels?.[label] ?? '';
    out.set(key, [...(out.get(key) ?? []), p]);
  }
  return out;
}

const ledger = async () =>
  readLedger(
    await core()
      .readNamespacedConfigMap({ name: USAGE_CONFIGMAP, namespace: ns.name })
      .catch(() => undefined),
  );

const drained = () => controller.agents.length === 0 && controller.agents.inFlight === 0;

beforeAll(async () => {
  await installCrds();
  ns = await withNamespace('agent-label');
  // Created before the controller starts, as on an upgrade: none of these templates is labelled.
  await apps().createNamespacedDeployment({
    namespace: ns.name,
    body: deployment('coder', { app: 'coder' }, 'coder'),
  });
  await apps().createNamespacedDeployment({
    namespace: ns.name,
    body: deployment('bystander', { app: 'by' }),
  });
  await apps().createNamespacedStatefulSet({ namespace: ns.name, body: agentStatefulSet('planner') });
  await eventually(async () => {
    const pods = await runningPods('app');
    return ['coder', 'by', 'planner'].every((app) => pods.has(app));
  }, 30_000);
  expect((await runningPods('colony.ai/agent')).get('')?.length).toBe(3);
  await enableOpenAi('coder');
  controller = new ColonyController({
    kc: kubeConfig(),
    registry,
    resyncMs: 0,
    namespace: ns.name,
    meteringIntervalMs: 150,
  });
  await controller.start();
});
afterAll(async () => {
  await controller?.stop();
  await ns.dispose();
});

describe('the agent label on agent pods', () => {
  it('labels the pods of a bound agent without colony-init, and the meter counts them', async () => {
    const t = await eventually(async () => {
      const now = await template('coder');
      return now?.metadata?.labels?.['colony.ai/agent'] === 'coder' && now;
    }, 15_000);
    expect(t.spec?.containers[0]?.env?.map((e) => e.name)).toEqual(['OPENAI_API_KEY']);
    expect(t.spec?.initContainers ?? []).toEqual([]);
    expect(t.metadata?.labels?.app).toBe('coder');
    // The selector is immutable and stays as it was: the label only adds to what it matches.
    const d = await apps().readNamespacedDeployment({ name: 'coder', namespace: ns.name });
    expect(d.spec?.selector.matchLabels).toEqual({ app: 'coder' });

    const [pod] = await eventually(async () => (await runningPods('colony.ai/agent')).get('coder'), 30_000);
    const uid = pod?.metadata?.uid ?? '';
    const start = Math.floor(new Date(pod?.status?.startTime ?? 0).getTime() / 1000);
    const counted = await eventually(async () => {
      const entry = (await ledger()).pods[uid];
      return entry && entry[1] > start + 1 && entry;
    }, 30_000);
    expect(counted[0]).toBe(2000);
  });

  it('labels an agent StatefulSet without bindings too, and counts its pod', async () => {
    const sts = await eventually(async () => {
      const s = await apps().readNamespacedStatefulSet({ name: 'planner', namespace: ns.name });
      return s.spec?.template.metadata?.labels?.['colony.ai/agent'] === 'planner' && s;
    }, 15_000);
    expect(sts.spec?.template.spec?.containers[0]?.env ?? []).toEqual([]);
    const [pod] = await eventually(async () => (await runningPods('colony.ai/agent')).get('planner'), 30_000);
    const uid = pod?.metadata?.uid ?? '';
    const entry = await eventually(async () => (await ledger()).pods[uid], 30_000);
    // A pod that requests nothing weighs one standard pod.
    expect(entry[0]).toBe(1000);
  });

  it('applies the label once: a further reconcile of a labelled agent writes nothing', async () => {
    await eventually(async () => {
      const writes = controller.writes;
      const labelled = (await template('coder'))?.metadata?.labels?.['colony.ai/agent'] === 'coder';
      return labelled && drained() && controller.writes === writes;
    }, 30_000);
    const before = controller.writes;
    const generation = (await apps().readNamespacedDeployment({ name: 'coder', namespace: ns.name })).metadata
      ?.generation;
    for (const name of ['coder', 'planner']) controller.agents.add(`${ns.name}/${name}`);
    await eventually(async () => drained(), 30_000);
    expect(controller.writes).toBe(before);
    const after = await apps().readNamespacedDeployment({ name: 'coder', namespace: ns.name });
    expect(after.metadata?.generation).toBe(generation);
  });

  it('leaves a workload that is not an agent alone, and its pods uncounted', async () => {
    expect((await template('bystander'))?.metadata?.labels).toEqual({ app: 'by' });
    const [pod] = (await runningPods('app')).get('by') ?? [];
    expect(pod?.metadata?.labels?.['colony.ai/agent']).toBeUndefined();
    expect(Object.keys((await ledger()).pods)).not.toContain(pod?.metadata?.uid);
  });

  it('keeps a template label its selector names with another value, and injects all the same', async () => {
    // The agent is `odd`; its selector (immutable) picks its pods by colony.ai/agent=odd-pods.
    await apps().createNamespacedDeployment({
      namespace: ns.name,
      body: deployment('odd', { 'colony.ai/agent': 'odd-pods' }, 'odd'),
    });
    await cluster().saveBinding(
      ns.name,
      'odd-openai',
      { agentName: 'odd', integrationId: 'openai', secretName: `openai-${office}`, enabled: true },
      office,
    );
    const t = await eventually(async () => {
      const now = await template('odd');
      return now?.spec?.containers[0]?.env?.some((e) => e.name === 'OPENAI_API_KEY') && now;
    }, 15_000);
    expect(t.metadata?.labels).toEqual({ 'colony.ai/agent': 'odd-pods' });
    // Its pods carry the label, so they are metered under their own value.
    const [pod] = await eventually(
      async () => (await runningPods('colony.ai/agent')).get('odd-pods'),
      30_000,
    );
    await eventually(async () => (await ledger()).pods[pod?.metadata?.uid ?? ''], 30_000);
  });
});
