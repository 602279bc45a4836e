// Metering on a real control plane: the controller counts agent pods (on kwok nodes) into the
// office's usage ledger, and across a restart, an overlap of two leaders, a leader change through
// the Lease and a pod's deletion, every second of every pod is counted exactly once.
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger, USAGE_CONFIGMAP, type UsageLedger, usagePeriod } from '../../cluster/usage-ledger.ts';
import { ColonyController } from '../../controller/colony-controller.ts';
import { runController } from '../../controller/run-controller.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';

const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
const core = () => kubeConfig().makeApiClient(CoreV1Api);
let ns: Awaited<ReturnType<typeof withNamespace>>;
const running: ColonyController[] = [];

async function startController(): Promise<ColonyController> {
  const c = new ColonyController({
    kc: kubeConfig(),
    registry,
    resyncMs: 0,
    namespace: ns.name,
    meteringIntervalMs: 150,
  });
  running.push(c);
  await c.start();
  return c;
}

async function stopController(c: ColonyController): Promise<void> {
  running.splice(running.indexOf(c), 1);
  await c.stop();
}

/** A pod labelled as an agent's, run by kwok; 4 vCPU and 1 GiB weigh four standard pods. */
async function createAgentPod(name: string): Promise<void> {
  const body: V1Pod = {
    metadata: { name, labels: { 'colony.ai/agent': name } },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'agent', image: 'busybox', resources: { requests: { cpu: '4', memory: '1Gi' } } }],
    },
  };
  await core().createNamespacedPod({ namespace: ns.name, body });
}

/** Per pod uid, its start (epoch seconds) as the kubelet (kwok) reported it; and uids by pod name. */
const starts = new Map<string, number>();
const uids = new Map<string, string>();

async function startOf(name: string): Promise<number> {
  const s = await eventually(async () => {
    const pod = await core().readNamespacedPod({ name, namespace: ns.name });
    const t = pod.status?.startTime;
    return t ? { uid: pod.metadata?.uid ?? '', start: Math.floor(new Date(t).getTime() / 1000) } : undefined;
  }, 30_000);
  starts.set(s.uid, s.start);
  uids.set(name, s.uid);
  return s.start;
}

async function ledger(): Promise<UsageLedger> {
  const cm = await core()
    .readNamespacedConfigMap({ name: USAGE_CONFIGMAP, namespace: ns.name })
    .catch(() => undefined);
  return readLedger(cm);
}

/** What the ledger must hold if each counted second was counted once: weight × (watermark − start). */
function expectedTotal(l: UsageLedger): number {
  let sum = 0;
  for (const [uid, [weight, until]] of Object.entries(l.pods))
    sum += weight * (until - (starts.get(uid) ?? NaN));
  return sum;
}
const total = (l: UsageLedger) => Object.values(l.periods).reduce((a, b) => a + b, 0);

beforeAll(async () => {
  await installCrds();
  ns = await withNamespace('metering');
});
afterAll(async () => {
  for (const c of [...running]) await c.stop();
  await ns.dispose();
});

describe('usage metering', () => {
  it('counts a running agent pod at its weight, in the current period', async () => {
    await createAgentPod('writer');
    await startOf('writer');
    const c = await startController();
    const l = await eventually(async () => {
      const now = await ledger();
      return Object.values(now.pods).some(([, until]) => until > Math.max(...starts.values()) + 1) && now;
    }, 15_000);
    expect(Object.values(l.pods).map(([weight]) => weight)).toEqual([4000]);
    expect(total(l)).toBeGreaterThan(0);
    expect(total(l)).toBe(expectedTotal(l));
    expect(Object.keys(l.periods)).toEqual([usagePeriod(Date.now())]);
    await stopController(c);
  });

  it('picks up after a restart: the time the controller was down is counted, and nothing twice', async () => {
    const before = await ledger();
    expect(total(before)).toBe(expectedTotal(before));
    const [stoppedAt] = Object.values(before.pods).map(([, until]) => until) as [number];
    // Nothing counts while no controller runs.
    await eventually(async () => Date.now() / 1000 > stoppedAt + 2, 10_000);
    expect(await ledger()).toEqual(before);
    const c = await startController();
    const after = await eventually(async () => {
      const l = await ledger();
      return Object.values(l.pods).every(([, until]) => until > stoppedAt + 2) && l;
    }, 15_000);
    expect(total(after)).toBe(expectedTotal(after));
    expect(total(after)).toBeGreaterThan(total(before));
    await stopController(c);
  });

  it('counts each second once while two controllers meter the same office at the same time', async () => {
    await createAgentPod('reviewer');
    await startOf('reviewer');
    const [a, b] = await Promise.all([startController(), startController()]);
    const from = Math.floor(Date.now() / 1000);
    await eventually(async () => {
      const l = await ledger();
      return Object.keys(l.pods).length === 2 && Object.values(l.pods).every(([, until]) => until > from + 2);
    }, 20_000);
    await Promise.all([stopController(a), stopController(b)]);
    const l = await ledger();
    expect(total(l)).toBe(expectedTotal(l));
    // Both wrote; the ledger's resourceVersion made the loser of each race re-read and find less to do.
    expect((a.meter?.totals.writes ?? 0) + (b.meter?.totals.writes ?? 0)).toBeGreaterThan(1);
  });

  it("hands the count over on a leader change: the new leader carries on from the old one's watermarks", async () => {
    const elect = () =>
      runController({
        kc: kubeConfig(),
        registry,
        lease: `${ns.name}/metering-leader`,
        log: pino({ level: 'silent' }),
        namespace: ns.name,
        layers: { meteringIntervalMs: 150 },
      });
    const first = await elect();
    await eventually(async () => first.isLeader() && first.isReady(), 30_000);
    const second = await elect();
    const led = await eventually(async () => {
      const l = await ledger();
      return Object.values(l.pods).every(([, until]) => until > Math.floor(Date.now() / 1000) - 1) && l;
    }, 15_000);
    expect(second.isLeader()).toBe(false);
    // The leader steps down (its last pass included); the follower takes the Lease and counts on.
    await first.stop();
    await eventually(async () => second.isLeader() && second.isReady(), 60_000);
    const handedOver = Math.max(...Object.values(led.pods).map(([, until]) => until));
    const after = await eventually(async () => {
      const l = await ledger();
      return Object.values(l.pods).every(([, until]) => until > handedOver + 2) && l;
    }, 30_000);
    await second.stop();
    expect(total(after)).toBe(expectedTotal(after));
  });

  it('stops counting a deleted pod at its deletion, and forgets nothing counted before', async () => {
    const c = await startController();
    await core().deleteNamespacedPod({ name: 'reviewer', namespace: ns.name, gracePeriodSeconds: 0 });
    const deletedAt = Math.floor(Date.now() / 1000);
    await eventually(async () =>
      core()
        .readNamespacedPod({ name: 'reviewer', namespace: ns.name })
        .then(() => false)
        .catch(() => true),
    );
    const writer = uids.get('writer') ?? '';
    // Once the survivor is counted past the deletion, the deleted pod's watermark no longer moves.
    const l = await eventually(async () => {
      const now = await ledger();
      return (now.pods[writer]?.[1] ?? 0) > deletedAt + 2 && now;
    }, 15_000);
    expect(l.pods[uids.get('reviewer') ?? '']?.[1]).toBeLessThanOrEqual(deletedAt + 1);
    expect(total(l)).toBe(expectedTotal(l));
    await stopController(c);
  });
});
