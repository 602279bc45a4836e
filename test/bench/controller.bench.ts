// Issue 3 benchmark, against the configured cluster (the local control plane under `make bench`):
// 1,000 AgentBindings across 100 offices from nothing to every agent template injected, by the
// controller as a real process. Reported: wall time, API requests per reconcile, writes during a
// no-op resync (target 0), toggle-to-template latency p50/p99. Baseline in the same run: a bare
// client loop making as many PATCH calls as the controller wrote, with as many in flight as the
// controller has workers. Target: within 1.5x.
// Issue 20, memory: controller RSS at 1,000 and 10,000 bindings (the second step on kwok offices),
// MiB per 1k bindings, and the cache's bytes per object by kind; baseline in the same run: the same
// controller with COLONY_CONTROLLER_TRIM_CACHE=false (whole objects cached). Target: RSS at 1k
// bindings at most half the chart's memory limit, and RSS at 10k within it.
import { randomBytes } from 'node:crypto';
import {
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
} from '@kubernetes/client-node';
import { GROUP, VERSION } from '../../cluster/crds/crds.ts';
import { FIELD_MANAGER } from '../../cluster/labels.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { type ControllerProcess, startControllerProcess } from '../support/controller-process.ts';
import { installCrds } from '../support/kube.ts';
import { type Agent, BenchCluster, inPool } from './controller/fixture.ts';
import { type ChartController, chartController, type MemoryProbe, probeMemory } from './controller/memory.ts';
import { type Snapshot, settle, sleep, waitFor } from './controller/snapshot.ts';
import { TemplateWatch } from './controller/template-watch.ts';
import { atMost, type BenchOutcome, type GoalRow } from './goals.ts';
import { percentile } from './load.ts';

export interface ControllerBenchOptions {
  offices: number;
  agentsPerOffice: number;
  /** Offices at the memory step's large size (1,000: 10,000 bindings); no large step when <= offices. */
  largeOffices: number;
  toggles: number;
}

const WORKERS = 2;
const RESYNC_SECONDS = 10;
const APPLY = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

type WrittenState = Awaited<ReturnType<BenchCluster['writtenState']>>;

/** Objects whose resourceVersion moved, plus new Events. */
function countWrites(before: WrittenState, after: WrittenState): number {
  let changed = 0;
  for (const [key, rv] of after.versions) if (before.versions.get(key) !== rv) changed++;
  return changed + Math.max(0, after.events - before.events);
}

const diff = (a: Snapshot, b: Snapshot) => ({
  requests: b.requests - a.requests,
  writes: b.writes - a.writes,
  reconciles: b.reconciles - a.reconciles,
});

/**
 * The baseline: the same writes the controller makes for an agent (a server-side apply of its pod
 * template, a server-side apply of its binding's status, an Event), `count` of them in all, made by
 * a bare loop under another field manager with as many in flight as the controller has workers.
 */
async function bareWriteLoop(kc: KubeConfig, agents: Agent[], count: number, phase: string): Promise<number> {
  const objects = kc.makeApiClient(KubernetesObjectApi);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const events = kc.makeApiClient(EventsV1Api);
  const manager = 'colony-bench';
  const write = async (k: number) => {
    const agent = agents[Math.floor(k / 3) % agents.length] as Agent;
    const { namespace, name } = agent;
    if (k % 3 === 0) {
      const env = [
        {
          name: `BENCH_${phase.toUpperCase()}_${k}`,
          valueFrom: { secretKeyRef: { name: `openai-${agent.office}`, key: 'OPENAI_API_KEY' } },
        },
      ];
      const sts = {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name, namespace },
        spec: {
          template: {
            metadata: { annotations: { 'bench.colony.ai/checksum': String(k) } },
            spec: { containers: [{ name: 'agent', env }] },
          },
        },
      };
      await objects.patch(sts, undefined, undefined, manager, true, PatchStrategy.ServerSideApply);
    } else if (k % 3 === 1) {
      const condition = {
        type: 'BenchWritten',
        status: 'True',
        reason: 'Bench',
        message: String(k),
        lastTransitionTime: new Date().toISOString(),
        observedGeneration: 1,
      };
      await custom.patchNamespacedCustomObjectStatus(
        {
          group: GROUP,
          version: VERSION,
          namespace,
          plural: 'agentbindings',
          name: `${name}-openai`,
          body: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'AgentBinding',
            metadata: { name: `${name}-openai`, namespace },
            status: { conditions: [condition] },
          },
          fieldManager: manager,
          force: true,
        },
        APPLY,
      );
    } else {
      await events.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name: `${name}.bench-${phase}-${k}`, namespace },
          eventTime: new V1MicroTime(Date.now()),
          reportingController: 'colony.ai/bench',
          reportingInstance: manager,
          action: 'Bench',
          reason: 'Bench',
          type: 'Normal',
          note: `bench write ${k}`,
          regarding: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'AgentBinding',
            name: `${name}-openai`,
            namespace,
          },
        },
      });
    }
  };
  const started = performance.now();
  await inPool(
    Array.from({ length: count }, (_, k) => k),
    WORKERS,
    write,
  );
  return performance.now() - started;
}

async function toggleLatencies(
  cluster: BenchCluster,
  watch: TemplateWatch,
  toggles: number,
): Promise<number[]> {
  const latencies: number[] = [];
  const stride = Math.max(1, Math.floor(cluster.agents.length / Math.max(1, toggles / 2)));
  for (let i = 0; latencies.length < toggles; i += stride) {
    const agent = cluster.agents[i % cluster.agents.length] as Agent;
    for (const enabled of [false, true]) {
      const started = performance.now();
      await cluster.toggle(agent, enabled);
      await watch.until(agent.namespace, agent.name, enabled);
      latencies.push(performance.now() - started);
    }
  }
  return latencies;
}

function report(rows: [string, string][]): void {
  for (const [k, v] of rows) console.log(`${k.padEnd(44)} ${v}`);
}

export async function benchController(opts: ControllerBenchOptions): Promise<BenchOutcome> {
  console.log('\n## Controller: AgentBindings from nothing to injected templates');
  if (!process.env.KUBECONFIG) {
    console.log('skipped: KUBECONFIG is not set (`make bench` starts the local control plane)');
    return 'skipped';
  }
  const kc = new KubeConfig();
  kc.loadFromFile(process.env.KUBECONFIG);
  await installCrds();
  const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
  const runId = randomBytes(3).toString('hex');
  const cluster = new BenchCluster(kc, registry, runId);
  const total = opts.offices * opts.agentsPerOffice;
  const watch = new TemplateWatch(kc, runId, 'OPENAI_API_KEY');
  const lease = `colony-system/colony-bench-${runId}`;
  // The controller runs with the chart's NODE_OPTIONS (its heap cap), as it would in the pod.
  const chart = chartController();
  let controller: ControllerProcess | undefined;
  try {
    let t = performance.now();
    await cluster.createOffices(opts.offices, opts.agentsPerOffice, 16);
    await inPool(cluster.agents, 16, (a) => cluster.toggle(a, true));
    console.log(
      `setup: ${opts.offices} offices, ${total} agents and bindings in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    await watch.start();
    // Baseline, first half: the machine is shared, so the bare loop runs before and after the
    // controller and the mean rate is what the controller is compared with.
    const bareBeforeWrites = 3 * total;
    const bareBeforeMs = await bareWriteLoop(kc, cluster.agents, bareBeforeWrites, 'before');

    // 1. From nothing: a cold controller lists everything and injects every template.
    t = performance.now();
    controller = await startControllerProcess({
      lease,
      env: {
        COLONY_CONTROLLER_RESYNC_SECONDS: String(RESYNC_SECONDS),
        COLONY_CONTROLLER_WORKERS: String(WORKERS),
        NODE_OPTIONS: chart.nodeOptions,
      },
    });
    const c = controller;
    // The clock starts once the process answers: Node's own start-up is not the controller's work.
    await waitFor(async () => (await c.ready()) !== undefined, 60_000, 'process start');
    const bootMs = performance.now() - t;
    t = performance.now();
    await waitFor(async () => (await c.ready())?.leader === true, 60_000, 'leadership and synced caches');
    const readyMs = performance.now() - t;
    await watch.allInjected(total);
    const convergeMs = performance.now() - t;
    const converged = await settle(c);

    // 2. A resync re-reconciles every cached object; with nothing changed it must write nothing.
    // Counted on the API server, on this run's objects only: a cluster-wide controller also
    // reconciles whatever else the cluster is running, which its own counters would include.
    const beforeResync = converged;
    const stateBefore = await cluster.writtenState(FIELD_MANAGER);
    await sleep((RESYNC_SECONDS + 2) * 1000);
    const resync = diff(beforeResync, await settle(c));
    const resyncWrites = countWrites(stateBefore, await cluster.writtenState(FIELD_MANAGER));

    // 3. Toggle latency: one binding at a time, off then on, until its template shows it.
    const latencies = await toggleLatencies(cluster, watch, opts.toggles);

    const running1k = await settle(c);
    c.child.kill('SIGTERM');
    await c.exited;
    controller = undefined;

    // Baseline: the controller's writes (as many, of the same kinds), made by a bare loop.
    const bareAfterMs = await bareWriteLoop(kc, cluster.agents, converged.writes, 'after');
    const msPerWrite = (bareBeforeMs / bareBeforeWrites + bareAfterMs / converged.writes) / 2;
    const bareMs = msPerWrite * converged.writes;
    const ratio = convergeMs / bareMs;
    report([
      ['process start (not counted)', `${(bootMs / 1000).toFixed(2)} s`],
      ['agents injected (from nothing)', `${total} in ${(convergeMs / 1000).toFixed(2)} s`],
      ['  of which lease and cache sync', `${(readyMs / 1000).toFixed(2)} s`],
      [
        'reconciles / failed / total reconcile time',
        `${converged.reconciles} / ${converged.errors} / ${converged.reconcileSeconds.toFixed(1)} s`,
      ],
      ['controller writes while converging', String(converged.writes)],
      ['API requests per reconcile', (converged.requests / converged.reconciles).toFixed(2)],
      ['writes per reconcile', (converged.writes / converged.reconciles).toFixed(2)],
      [`no-op resync (${resync.reconciles} reconciles)`, `${resyncWrites} writes (target 0)`],
      [
        'toggle-to-template latency p50 / p99',
        `${percentile(latencies, 50).toFixed(0)} / ${percentile(latencies, 99).toFixed(0)} ms (${latencies.length} toggles)`,
      ],
      [
        `baseline: the same ${converged.writes} writes, bare, ${WORKERS} in flight`,
        `${(bareMs / 1000).toFixed(2)} s (${msPerWrite.toFixed(1)} ms per write; before ${((bareBeforeMs / bareBeforeWrites) * 1000).toFixed(0)} µs, after ${((bareAfterMs / converged.writes) * 1000).toFixed(0)} µs)`,
      ],
      ['ratio controller / bare (target <= 1.5)', ratio.toFixed(2)],
    ]);
    // 4. Memory at 1k bindings, then at 10k (the extra offices on kwok nodes, like the first ones).
    const memory = await memorySteps({ cluster, watch, opts, lease, chart, running1k });
    return [
      atMost(`${total} agents injected from nothing`, ratio, 1.5, '× bare writes'),
      atMost('writes during a no-op resync', resyncWrites, 0, 'writes'),
      ...memory,
    ];
  } finally {
    watch.stop();
    controller?.child.kill('SIGKILL');
    await cluster.dispose();
  }
}

const mib = (n: number) => `${n.toFixed(0)} MiB`;
type Pair = { trimmed: MemoryProbe; whole: MemoryProbe };

/** A trimmed and a whole-object controller, one after the other, on the cluster as it stands. */
async function probePair(lease: string, chart: ChartController): Promise<Pair> {
  const nodeOptions = chart.nodeOptions;
  return {
    trimmed: await probeMemory({ lease, trim: true, nodeOptions }),
    whole: await probeMemory({ lease, trim: false, nodeOptions }),
  };
}

function probeRows(bindings: number, p: Pair): [string, string][] {
  const row = (m: MemoryProbe) =>
    `${mib(m.settled.rssMiB)} / ${mib(m.collected.rssMiB)} (heap ${mib(m.collected.heapUsedMiB)}; ${m.collected.cached} objects, synced in ${(m.syncMs / 1000).toFixed(1)} s)`;
  return [
    [`${bindings} bindings, cold, trimmed: RSS settled / after GC`, row(p.trimmed)],
    [`${bindings} bindings, cold, whole objects (baseline)`, row(p.whole)],
  ];
}

/** Heap per cached object and per 1k bindings between two sizes, and RSS per 1k, after a full GC. */
function growthRows(small: Pair, big: Pair, added: number): [string, string][] {
  const grew = (p: keyof Pair, of: 'heapUsedMiB' | 'rssMiB') => big[p].collected[of] - small[p].collected[of];
  const pair = (t: number, w: number, digits: number) =>
    `${t.toFixed(digits)} / ${w.toFixed(digits)} (ratio ${(t / w).toFixed(2)})`;
  const perObject = (p: keyof Pair) =>
    (grew(p, 'heapUsedMiB') * 1024) / (big[p].collected.cached - small[p].collected.cached);
  const per1k = (p: keyof Pair, of: 'heapUsedMiB' | 'rssMiB') => (grew(p, of) / added) * 1000;
  return [
    ['KiB of heap per cached object: trimmed / whole', pair(perObject('trimmed'), perObject('whole'), 2)],
    [
      'MiB per 1k bindings, heap after GC: trimmed / whole',
      pair(per1k('trimmed', 'heapUsedMiB'), per1k('whole', 'heapUsedMiB'), 1),
    ],
    [
      'MiB per 1k bindings, RSS after GC: trimmed / whole',
      pair(per1k('trimmed', 'rssMiB'), per1k('whole', 'rssMiB'), 1),
    ],
  ];
}

/** Creates the large size's offices and lets a (trimmed) controller converge them; its settled RSS. */
async function growAndConverge(
  a: { cluster: BenchCluster; watch: TemplateWatch; opts: ControllerBenchOptions; lease: string },
  chart: ChartController,
  rows: [string, string][],
): Promise<Snapshot> {
  const { cluster, opts } = a;
  const base = cluster.agents.length;
  let t = performance.now();
  await cluster.createOffices(opts.largeOffices - opts.offices, opts.agentsPerOffice, 16, opts.offices);
  await inPool(cluster.agents.slice(base), 16, (agent) => cluster.toggle(agent, true));
  const large = cluster.agents.length;
  rows.push([
    `setup: ${large - base} more agents and bindings`,
    `${((performance.now() - t) / 1000).toFixed(1)} s`,
  ]);
  t = performance.now();
  const c = await startControllerProcess({
    lease: a.lease,
    env: { COLONY_CONTROLLER_WORKERS: String(WORKERS), NODE_OPTIONS: chart.nodeOptions },
  });
  try {
    await a.watch.allInjected(large);
    rows.push([`agents injected (${base} to ${large})`, `${((performance.now() - t) / 1000).toFixed(1)} s`]);
    return await settle(c);
  } finally {
    c.child.kill('SIGTERM');
    await c.exited;
  }
}

/**
 * The memory steps, all with the chart's NODE_OPTIONS: cold controllers (trimmed, then whole) at
 * the base size; the large size's offices created and converged by a trimmed controller; cold
 * controllers again. The settled RSS of the trimmed controllers is what a pod shows; heap and RSS
 * after a full GC give MiB per 1k bindings.
 */
async function memorySteps(a: {
  cluster: BenchCluster;
  watch: TemplateWatch;
  opts: ControllerBenchOptions;
  lease: string;
  chart: ChartController;
  running1k: Snapshot;
}): Promise<GoalRow[]> {
  const { cluster, opts, chart } = a;
  const base = cluster.agents.length;
  const small = await probePair(a.lease, chart);
  const rows: [string, string][] = [
    [`chart's controller limit / NODE_OPTIONS`, `${chart.limitMiB} MiB / ${chart.nodeOptions || '(none)'}`],
    [`${base} bindings, converging controller: RSS settled`, mib(a.running1k.rssMiB)],
    ...probeRows(base, small),
  ];
  const at1k = Math.max(a.running1k.rssMiB, small.trimmed.settled.rssMiB);
  let at10k: number | undefined;
  if (opts.largeOffices > opts.offices) {
    const running = await growAndConverge(a, chart, rows);
    const large = cluster.agents.length;
    rows.push([`${large} bindings, converging controller: RSS settled`, mib(running.rssMiB)]);
    const big = await probePair(a.lease, chart);
    rows.push(...probeRows(large, big), ...growthRows(small, big, large - base));
    at10k = Math.max(running.rssMiB, big.trimmed.settled.rssMiB);
  }
  // Comfortably under: at least 40% of the limit left at 1k, and the large size still within it.
  const met = at1k <= chart.limitMiB * 0.6 && (at10k === undefined || at10k <= chart.limitMiB);
  rows.push([
    `goal: RSS at ${base} <= 60% of ${chart.limitMiB} MiB${at10k === undefined ? '' : `, at ${cluster.agents.length} <= 100%`}`,
    `${mib(at1k)} (${((at1k / chart.limitMiB) * 100).toFixed(0)}%)${at10k === undefined ? '' : ` / ${mib(at10k)} (${((at10k / chart.limitMiB) * 100).toFixed(0)}%)`}: ${met ? 'met' : 'not met'}`,
  ]);
  report(rows);
  const goals = [atMost(`controller RSS at ${base} bindings`, at1k, chart.limitMiB * 0.6, 'MiB')];
  if (at10k !== undefined)
    goals.push(atMost(`controller RSS at ${cluster.agents.length} bindings`, at10k, chart.limitMiB, 'MiB'));
  return goals;
}
