// Issue 16 part 4 benchmark: what metering costs at 1,000 running agent pods (100 offices of 10, on
// kwok nodes), against what the controller spends reconciling the same 1,000 agents, in the same
// run and the same process. Reported: the wall time and API requests of one metering pass (each
// office's ledger read and replaced), of the controller's convergence of every agent (an enabled
// binding each: env applied, status written), and their ratio.
// Goal: a metering pass costs at most a tenth of reconciling the same agents. The meter runs once a
// minute by default and a resync reconciles every agent every five minutes, so at that ratio metering
// adds at most half of the controller's steady work on the API server; it stays O(offices) per pass,
// not O(pods), because each office's ledger is one ConfigMap.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { ColonyController } from '../../controller/colony-controller.ts';
import { UsageMeter } from '../../controller/metering/usage-meter.ts';
import { countingKubeConfig } from '../../controller/runtime/counting-kube-config.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { installCrds, kubeConfig } from '../support/kube.ts';
import { BENCH_LABEL, BenchCluster, inPool } from './controller/fixture.ts';
import { sleep, waitFor } from './controller/snapshot.ts';
import { atMost, type GoalRow } from './goals.ts';

export interface MeteringBenchOptions {
  offices: number;
  agentsPerOffice: number;
  /** Metering passes measured (after the first, which creates the ledgers). */
  rounds: number;
}

const CONCURRENCY = 16;

/**
 * An agent's pod that no scheduler picks up (the kwok nodes hold 110 pods each): the bench sets its
 * status through the status subresource, as a kubelet would, so it runs as far as the meter can tell.
 */
function agentPod(name: string, runId: string): V1Pod {
  return {
    metadata: { name: `${name}-0`, labels: { 'colony.ai/agent': name, [BENCH_LABEL]: runId } },
    spec: {
      schedulerName: 'colony-bench-unscheduled',
      terminationGracePeriodSeconds: 0,
      containers: [
        { name: 'agent', image: 'busybox', resources: { requests: { cpu: '500m', memory: '1Gi' } } },
      ],
    },
  };
}

async function startPod(core: CoreV1Api, namespace: string, name: string, startedAt: string): Promise<void> {
  const status = {
    phase: 'Running',
    startTime: startedAt,
    containerStatuses: [
      {
        ...{ name: 'agent', image: 'busybox', imageID: '', ready: true, restartCount: 0 },
        state: { running: { startedAt } },
      },
    ],
  };
  await core.patchNamespacedPodStatus({
    name,
    namespace,
    body: [{ op: 'add', path: '/status', value: status }],
  });
}

async function runningPods(core: CoreV1Api, runId: string): Promise<number> {
  const list = await core.listPodForAllNamespaces({ labelSelector: `${BENCH_LABEL}=${runId}` });
  return list.items.filter((p) => p.status?.startTime).length;
}

/** Waits until the controller has nothing queued and wrote nothing for a second; answers when it last wrote. */
async function converged(c: ColonyController, minWrites: number): Promise<number> {
  let writes = c.writes;
  let lastChange = performance.now();
  const deadline = Date.now() + 900_000;
  for (;;) {
    await sleep(200);
    if (Date.now() > deadline) throw new Error(`metering bench: ${c.writes} writes, not converged`);
    if (c.writes !== writes) {
      writes = c.writes;
      lastChange = performance.now();
    } else if (writes >= minWrites && c.agents.length === 0 && performance.now() - lastChange > 1_000)
      return lastChange;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function benchMetering(o: MeteringBenchOptions): Promise<GoalRow[]> {
  await installCrds();
  const base = kubeConfig();
  const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
  const runId = randomBytes(3).toString('hex');
  const cluster = new BenchCluster(base, registry, runId);
  const core = base.makeApiClient(CoreV1Api);
  let requests = 0;
  const kc: KubeConfig = countingKubeConfig(base, () => requests++);
  let controller: ColonyController | undefined;
  try {
    const agents = await cluster.createOffices(o.offices, o.agentsPerOffice, CONCURRENCY);
    await inPool(agents, CONCURRENCY, (a) => cluster.toggle(a, true));
    const startedAt = new Date(Date.now() - 3_600_000).toISOString();
    await inPool(agents, CONCURRENCY, async (a) => {
      await core.createNamespacedPod({ namespace: a.namespace, body: agentPod(a.name, runId) });
      await startPod(core, a.namespace, `${a.name}-0`, startedAt);
    });
    await waitFor(
      async () => (await runningPods(core, runId)) === agents.length,
      60_000,
      'agent pods running',
    );

    // Reconcile: every agent from synced caches to converged, the same process the meter will run in.
    // Only this run's offices: the cluster is shared, and other namespaces are not this bench's to touch.
    controller = new ColonyController({
      ...{ kc, registry, workers: 2, resyncMs: 0, credentialChecks: false },
      namespaceSelector: `${BENCH_LABEL}=${runId}`,
    });
    await controller.start();
    const before = requests;
    const t0 = performance.now();
    const done = await converged(controller, agents.length);
    const reconcileMs = done - t0;
    const reconcileRequests = requests - before;

    // Metering: passes over the same pods, in the same cache; the first one creates the ledgers.
    // Its own counter: the controller's watches and resync keep talking meanwhile.
    let meterRequests = 0;
    const meterKc = countingKubeConfig(base, () => meterRequests++);
    const meter = new UsageMeter({
      kc: meterKc,
      pods: controller.view.pods,
      intervalMs: 3_600_000,
      log: silent,
    });
    const first = await meter.flush();
    const passes: number[] = [];
    let perPass = 0;
    for (let r = 0; r < o.rounds; r++) {
      const b = meterRequests;
      const t = performance.now();
      const res = await meter.flush();
      passes.push(performance.now() - t);
      perPass = meterRequests - b;
      if (res.namespaces < o.offices)
        throw new Error(`metered ${res.namespaces} offices, expected ${o.offices}`);
    }
    const meterMs = median(passes);
    const ratio = meterMs / reconcileMs;
    console.log(`\n## metering (${agents.length} agent pods in ${o.offices} offices)\n`);
    console.log('| figure | value |\n|---|---|');
    console.log(
      `| reconcile every agent (converged) | ${(reconcileMs / 1000).toFixed(2)} s, ${reconcileRequests} requests |`,
    );
    console.log(`| first metering pass (creates ${first.writes} ledgers) | ${first.namespaces} offices |`);
    console.log(`| metering pass (median of ${o.rounds}) | ${meterMs.toFixed(0)} ms, ${perPass} requests |`);
    console.log(`| metering / reconcile, wall time | ${ratio.toFixed(3)} |`);
    console.log(`| metering / reconcile, API requests | ${(perPass / reconcileRequests).toFixed(3)} |`);
    return [
      atMost('metering pass / reconciling the same agents (wall time)', ratio, 0.1, '×'),
      atMost(
        'metering pass / reconciling the same agents (API requests)',
        perPass / reconcileRequests,
        0.1,
        '×',
      ),
    ];
  } finally {
    await controller?.stop();
    await cluster.dispose();
  }
}

const silent = { child: () => silent, info: () => {}, warn: () => {}, error: () => {} };
