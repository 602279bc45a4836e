// Faults on real pods: the leader controller deleted in the middle of a rollout, the API pod deleted
// while checkouts are being written, and the node's containerd and kubelet restarted. Each story
// checks what a cluster admin would: who leads, what the agents' processes see, what was
// acknowledged and what is still there.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1Deployment,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/helm.ts';
import { kubeConfig } from '../support/kube.ts';
import { type ColonyUnderTest, colonyMode, startColony } from './support/colony-under-test.ts';
import { eventually } from './support/eventually.ts';
import { NODE, processEnv } from './support/in-pod.ts';
import { isReady } from './support/pod-status.ts';

const real = colonyMode !== 'local';
const officeId = `fault-${randomBytes(3).toString('hex')}`;
const officeNs = `${process.env.COLONY_E2E_NAMESPACE_PREFIX ?? 'colony-e2e'}-${officeId}`;
const agents = ['a1', 'a2', 'a3', 'a4'];
// The local cluster's restart.sh needs its state dir: the kubeconfig up.sh wrote lives there.
const localClusterDir = process.env.KUBECONFIG ? dirname(process.env.KUBECONFIG) : '';
const isLocalCluster = localClusterDir !== '' && existsSync(join(localClusterDir, '.colony-cluster'));

let admin: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let colony: ColonyUnderTest;

async function office(method: string, path: string, body?: unknown) {
  const res = await fetch(`${colony.managerUrl}/api/v1/offices/${officeId}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${colony.bootstrapToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
}

const toggle = (integration: string, agent: string, enabled: boolean) =>
  office('POST', `/integrations/${integration}/agents/${agent}`, {
    enabled,
    secretName: `${integration}-${officeId}`,
  });

function agentDeployment(name: string): V1Deployment {
  return {
    metadata: { name, labels: { 'colony.ai/agent': name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: `${name}-agent` } },
      template: {
        metadata: { labels: { app: `${name}-agent` } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'agent',
              image: colony.image,
              imagePullPolicy: 'IfNotPresent',
              command: [NODE, '-e', 'setInterval(() => {}, 1 << 30)'],
              securityContext: { runAsNonRoot: true, runAsUser: 65532, allowPrivilegeEscalation: false },
            },
          ],
        },
      },
    },
  };
}

/** How many env entries of the agent's pod template carry each name. */
async function templateEnvCounts(agent: string): Promise<Record<string, number>> {
  const d = await apps.readNamespacedDeployment({ name: agent, namespace: officeNs });
  const counts: Record<string, number> = {};
  for (const e of d.spec?.template.spec?.containers[0]?.env ?? []) counts[e.name] = (counts[e.name] ?? 0) + 1;
  return counts;
}

/** The agent's one Ready pod of its current rollout (no older pod still alive). */
async function settledAgentPod(agent: string): Promise<V1Pod> {
  const d = await apps.readNamespacedDeployment({ name: agent, namespace: officeNs });
  if ((d.status?.updatedReplicas ?? 0) !== 1 || (d.status?.replicas ?? 0) !== 1)
    throw new Error(`${agent}: rollout in progress`);
  const pods = (
    await core.listNamespacedPod({ namespace: officeNs, labelSelector: `app=${agent}-agent` })
  ).items.filter((p) => !p.metadata?.deletionTimestamp);
  const pod = pods.length === 1 ? pods[0] : undefined;
  if (!pod || !isReady(pod)) throw new Error(`${agent}: ${pods.length} live pods, none settled and Ready`);
  return pod;
}

const podEnv = (pod: V1Pod) =>
  processEnv({ namespace: officeNs, pod: pod.metadata?.name ?? '', container: 'agent' });

/** Every agent's running process has exactly the variables named (and no other injected one). */
async function agentsConverged(want: string[], injected: string[]) {
  for (const agent of agents) {
    const counts = await templateEnvCounts(agent);
    for (const name of injected)
      expect(counts[name] ?? 0, `${agent} ${name}`).toBe(want.includes(name) ? 1 : 0);
    const pod = await settledAgentPod(agent);
    const env = await podEnv(pod);
    for (const name of injected) expect(name in env, `${agent} process ${name}`).toBe(want.includes(name));
  }
}

async function controllerLease() {
  const leases = await admin
    .makeApiClient(CoordinationV1Api)
    .listNamespacedLease({ namespace: colony.releaseNamespace });
  const lease = leases.items.find((l) => l.metadata?.name?.endsWith('-controller'));
  if (!lease) throw new Error('no controller Lease yet');
  return lease;
}

async function controllerPods(): Promise<V1Pod[]> {
  return (
    await core.listNamespacedPod({
      namespace: colony.releaseNamespace,
      labelSelector: 'app.kubernetes.io/component=controller',
    })
  ).items.filter((p) => !p.metadata?.deletionTimestamp);
}

/** The controller pod whose identity holds the Lease (identities are `<pod name>-<random>`). */
async function leaderPod(): Promise<V1Pod> {
  const holder = (await controllerLease()).spec?.holderIdentity ?? '';
  const pod = (await controllerPods()).find((p) => holder.startsWith(`${p.metadata?.name}-`));
  if (!pod) throw new Error(`no live controller pod holds the Lease (holder: ${holder || 'none'})`);
  return pod;
}

describe.skipIf(!real)('faults on real pods (the local simulated mode cannot show them)', () => {
  beforeAll(async () => {
    admin = kubeConfig();
    core = admin.makeApiClient(CoreV1Api);
    apps = admin.makeApiClient(AppsV1Api);
    await core.createNamespace({
      body: {
        metadata: { name: officeNs, labels: { 'colony.ai/office': officeId, 'colony.ai/test': 'true' } },
      },
    });
    colony = await startColony(admin, officeNs);
    for (const agent of agents)
      await apps.createNamespacedDeployment({ namespace: officeNs, body: agentDeployment(agent) });
    await office('POST', '/integrations/openai/secret', { data: { OPENAI_API_KEY: 'sk-fault-openai' } });
    await office('POST', '/integrations/anthropic/secret', {
      data: { ANTHROPIC_API_KEY: 'sk-ant-fault' },
    });
    await eventually('every agent runs', () => agentsConverged([], ['OPENAI_API_KEY']), {
      timeoutMs: 180_000,
    });
  });

  afterAll(async () => {
    await core?.deleteNamespace({ name: officeNs }).catch(() => {});
    await colony?.stop();
  });

  it('a deleted leader is replaced by the other replica within the Lease time, and the rollout converges exactly', async () => {
    const leader = await eventually('a controller leads', leaderPod);
    const leaderName = leader.metadata?.name ?? '';
    // A rollout across every agent, and the leader deleted while it is under way.
    for (const agent of agents) await toggle('openai', agent, true);
    await core.deleteNamespacedPod({ name: leaderName, namespace: colony.releaseNamespace });
    // The chart's Lease lasts 15 s; a leader that shuts down cleanly releases it sooner.
    const successor = await eventually(
      'the other replica holds the Lease',
      async () => {
        const pod = await leaderPod();
        if (pod.metadata?.name === leaderName) throw new Error('the deleted pod still holds the Lease');
        return pod;
      },
      { timeoutMs: 15_000 },
    );
    expect(successor.metadata?.name).not.toBe(leaderName);
    // Changes made after the hand-over are the new leader's alone.
    for (const agent of agents.slice(0, 2)) await toggle('anthropic', agent, true);
    await eventually(
      'every agent has OPENAI_API_KEY once, the first two ANTHROPIC_API_KEY once',
      async () => {
        for (const agent of agents) {
          const counts = await templateEnvCounts(agent);
          expect(counts.OPENAI_API_KEY ?? 0, agent).toBe(1);
          expect(counts.ANTHROPIC_API_KEY ?? 0, agent).toBe(agents.indexOf(agent) < 2 ? 1 : 0);
        }
      },
      { timeoutMs: 120_000 },
    );
    await eventually(
      'the agents’ processes see exactly that',
      async () => {
        await agentsConverged(['OPENAI_API_KEY'], ['OPENAI_API_KEY']);
        for (const agent of agents.slice(0, 2)) {
          const pod = await settledAgentPod(agent);
          const env = await podEnv(pod);
          expect(env.ANTHROPIC_API_KEY).toBe('sk-ant-fault');
        }
      },
      { timeoutMs: 180_000 },
    );
  });

  it('deleting the API pod while checkouts are written loses none that was acknowledged', async () => {
    const acknowledged: string[] = [];
    let refused = 0;
    const apiPods = async () =>
      (
        await core.listNamespacedPod({
          namespace: colony.releaseNamespace,
          labelSelector: 'app.kubernetes.io/component=api',
        })
      ).items.filter((p) => !p.metadata?.deletionTimestamp);
    const [victim] = await apiPods();
    const create = async (n: number) => {
      try {
        const res = await fetch(`${colony.apiUrl}/checkout_sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `fault-${officeId}-${n}` },
          body: JSON.stringify({ line_items: [{ item: { id: 'plan_pro_monthly' } }] }),
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await res.json()) as { id?: string };
        if (res.status === 201 && body.id) acknowledged.push(body.id);
        else refused++;
      } catch {
        // The connection broke with the pod: not acknowledged, so nothing is owed. Write again once
        // the API answers (the port-forward follows the Service to the new pod).
        refused++;
        await eventually(
          'the API answers again',
          async () => {
            const r = await fetch(`${colony.apiUrl}/readyz`, { signal: AbortSignal.timeout(3000) });
            if (!r.ok) throw new Error(`readyz ${r.status}`);
          },
          { timeoutMs: 120_000 },
        );
      }
    };
    // Eight writes in flight while the pod goes: some finish before SIGTERM, some are cut off.
    for (let n = 0; n < 8; n++) await create(n);
    const inFlight = [8, 9, 10, 11, 12, 13, 14, 15].map((n) => create(n));
    await core.deleteNamespacedPod({
      name: victim?.metadata?.name ?? '',
      namespace: colony.releaseNamespace,
    });
    await Promise.all(inFlight);
    await eventually(
      'a new API pod is Ready',
      async () => {
        const pods = await apiPods();
        if (!pods.some((p) => p.metadata?.name !== victim?.metadata?.name && isReady(p)))
          throw new Error('no replacement API pod Ready');
      },
      { timeoutMs: 120_000 },
    );
    for (let n = 16; n < 24; n++) await create(n);
    expect(acknowledged.length).toBeGreaterThanOrEqual(16);
    // Every 2xx is on PostgreSQL, read back through the new pod.
    for (const id of acknowledged) {
      const res = await fetch(`${colony.apiUrl}/checkout_sessions/${id}`);
      expect(res.status, id).toBe(200);
      expect(((await res.json()) as { id: string }).id).toBe(id);
    }
    expect(refused + acknowledged.length).toBe(24);
  });

  it.skipIf(!isLocalCluster)(
    'restarting containerd and kubelet keeps the workloads, and the node still starts new ones',
    async () => {
      const before = await Promise.all(agents.map(settledAgentPod));
      const containerIds = before.map((p) => p.status?.containerStatuses?.[0]?.containerID);
      execFileSync('bash', [join(repoRoot, 'scripts/cluster/restart.sh'), 'containerd', 'kubelet'], {
        env: { ...process.env, COLONY_CLUSTER_DIR: localClusterDir },
        stdio: 'pipe',
      });
      await eventually(
        'the node is Ready and the same containers run on',
        async () => {
          const after = await Promise.all(agents.map(settledAgentPod));
          expect(after.map((p) => p.status?.containerStatuses?.[0]?.containerID)).toEqual(containerIds);
          for (const pod of after) await podEnv(pod);
        },
        { timeoutMs: 120_000 },
      );
      // The port-forward streams through the kubelet that was just restarted: kubectl exits with it
      // and is started again, so the first connection may find the local port not yet listening.
      await eventually(
        'the API answers through a new port-forward',
        async () => {
          const readyz = await fetch(`${colony.apiUrl}/readyz`, { signal: AbortSignal.timeout(3000) });
          expect(readyz.status).toBe(200);
        },
        { timeoutMs: 60_000 },
      );
      // A new container after the restart: the third agent's rollout.
      await toggle('anthropic', 'a3', true);
      await eventually(
        'the third agent’s new process sees ANTHROPIC_API_KEY',
        async () => {
          const pod = await settledAgentPod('a3');
          expect(pod.metadata?.name).not.toBe(before[2]?.metadata?.name);
          const env = await podEnv(pod);
          expect(env.ANTHROPIC_API_KEY).toBe('sk-ant-fault');
        },
        { timeoutMs: 180_000 },
      );
    },
  );
});
