// Crash recovery on a real control plane, with the controller as a real process: killed with
// SIGKILL halfway through a rollout it converges after a restart, and when the leader dies a
// standby replica takes over once the Lease expires.
import { randomBytes } from 'node:crypto';
import { AppsV1Api, CoordinationV1Api, type V1StatefulSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { type ControllerProcess, startControllerProcess } from '../support/controller-process.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';

const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
const office = 'acme';
const AGENTS = 80;
const leaseName = `colony-recovery-${randomBytes(3).toString('hex')}`;
const lease = `colony-system/${leaseName}`;
const apps = () => kubeConfig().makeApiClient(AppsV1Api);
const cluster = () => new OfficeCluster(kubeConfig());
let ns: Awaited<ReturnType<typeof withNamespace>>;
const processes: ControllerProcess[] = [];

const agentName = (i: number) => `agent-${String(i).padStart(3, '0')}`;

function agent(name: string): V1StatefulSet {
  // No replicas: the test is about templates, and 80 simulated pods would only slow the cluster.
  return {
    metadata: { name, labels: { 'colony.ai/agent': name } },
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

const toggle = (name: string, enabled: boolean) =>
  cluster().saveBinding(
    ns.name,
    `${name}-openai`,
    { agentName: name, integrationId: 'openai', secretName: `openai-${office}`, enabled },
    office,
  );

/** Agent name -> the env names of its pod template. */
async function templates(): Promise<Map<string, string[]>> {
  const list = await apps().listNamespacedStatefulSet({ namespace: ns.name });
  return new Map(
    list.items.map((s) => [
      s.metadata?.name ?? '',
      (s.spec?.template.spec?.containers[0]?.env ?? []).map((e) => e.name).sort(),
    ]),
  );
}

const injectedCount = async () =>
  [...(await templates()).values()].filter((env) => env.includes('OPENAI_API_KEY')).length;

async function inBatches(count: number, size: number, fn: (i: number) => Promise<unknown>) {
  for (let start = 0; start < count; start += size)
    await Promise.all(Array.from({ length: Math.min(size, count - start) }, (_, k) => fn(start + k)));
}

async function start(): Promise<ControllerProcess> {
  const p = await startControllerProcess({ namespace: ns.name, lease });
  processes.push(p);
  return p;
}

const leaseHolder = async () =>
  (
    await kubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: leaseName, namespace: 'colony-system' })
  ).spec?.holderIdentity;

const leads = (p: ControllerProcess) => eventually(async () => (await p.ready())?.leader === true, 45_000);

beforeAll(async () => {
  await installCrds();
  ns = await withNamespace('office-recovery');
  const manifest = registry.get('openai');
  if (!manifest) throw new Error('openai is missing from the registry');
  const secretName = `openai-${office}`;
  const data = { OPENAI_API_KEY: 'sk-recovery' };
  await cluster().saveSecret(
    renderIntegrationSecret({ manifest, officeId: office, namespace: ns.name, secretName, data }),
  );
  await cluster().saveIntegration(ns.name, 'openai', {
    integrationId: 'openai',
    officeId: office,
    secretName,
  });
  await inBatches(AGENTS, 20, (i) =>
    apps().createNamespacedStatefulSet({ namespace: ns.name, body: agent(agentName(i)) }),
  );
});

afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await ns.dispose();
});

describe('controller crash recovery', () => {
  it('converges after being killed halfway through a rollout, without duplicating anything', async () => {
    const first = await start();
    await leads(first);
    // The first quarter is enabled, and the controller dies as soon as it has injected one of them;
    // the rest are enabled while no controller runs.
    await inBatches(AGENTS / 4, 20, (i) => toggle(agentName(i), true));
    await eventually(async () => (await injectedCount()) > 0, 20_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    await inBatches(AGENTS, 20, (i) => (i < AGENTS / 4 ? Promise.resolve() : toggle(agentName(i), true)));
    const injectedAtKill = await injectedCount();
    expect(injectedAtKill).toBeGreaterThan(0);
    expect(injectedAtKill).toBeLessThanOrEqual(AGENTS / 4);

    // The dead leader never released its Lease: the new process waits for it to expire, then finishes.
    const second = await start();
    await leads(second);
    expect(await leaseHolder()).toBe(await second.identity());
    await eventually(async () => (await injectedCount()) === AGENTS, 60_000);
    for (const [name, env] of await templates())
      expect([name, env]).toEqual([name, ['OPENAI_API_KEY', 'OWN']]);
  }, 120_000);

  it('fails over to a standby replica when the leader dies, and the standby reconciles what changed', async () => {
    const leader = processes.at(-1);
    if (!leader) throw new Error('the previous test left no controller');
    const standby = await start();
    await eventually(async () => (await standby.ready())?.status === 'ok', 20_000);
    expect((await standby.ready())?.leader).toBe(false);
    expect(await standby.metrics()).toMatch(/colony_controller_leader 0/);

    await toggle(agentName(0), false);
    await eventually(async () => !(await templates()).get(agentName(0))?.includes('OPENAI_API_KEY'), 20_000);

    leader.child.kill('SIGKILL');
    await leader.exited;
    // A change made while nobody leads is picked up by the standby once it takes the Lease.
    await toggle(agentName(1), false);
    await leads(standby);
    expect(await leaseHolder()).toBe(await standby.identity());
    await eventually(async () => !(await templates()).get(agentName(1))?.includes('OPENAI_API_KEY'), 30_000);
    const env = await templates();
    expect(env.get(agentName(1))).toEqual(['OWN']);
    expect(env.get(agentName(2))).toEqual(['OPENAI_API_KEY', 'OWN']);
    expect(await standby.metrics()).toMatch(/colony_controller_leader 1/);
  }, 120_000);
});
