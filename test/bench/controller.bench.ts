// Issue 3 benchmark, against the configured cluster (the local control plane under `make bench`):
// 1,000 AgentBindings across 100 offices from nothing to every agent template injected, by the
// controller as a real process. Reported: wall time, API requests per reconcile, writes during a
// no-op resync (target 0), toggle-to-template latency p50/p99, and controller RSS with 10,000
// cached objects. Baseline in the same run: a bare client loop making as many PATCH calls as the
// controller wrote, with as many in flight as the controller has workers. Target: within 1.5x.
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
import { GROUP, VERSION } from '../../controller/api/crds.ts';
import { FIELD_MANAGER } from '../../controller/render/labels.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { type ControllerProcess, startControllerProcess } from '../support/controller-process.ts';
import { installCrds } from '../support/kube.ts';
import { type Agent, BenchCluster, inPool } from './controller/fixture.ts';
import { parseSamples, sum } from './controller/prometheus-text.ts';
import { TemplateWatch } from './controller/template-watch.ts';
import { percentile } from './load.ts';

export interface ControllerBenchOptions {
  offices: number;
  agentsPerOffice: number;
  cachedObjects: number;
  toggles: number;
}

const WORKERS = 2;
const RESYNC_SECONDS = 10;
const APPLY = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type WrittenState = Awaited<ReturnType<BenchCluster['writtenState']>>;

/** Objects whose resourceVersion moved, plus new Events. */
function countWrites(before: WrittenState, after: WrittenState): number {
  let changed = 0;
  for (const [key, rv] of after.versions) if (before.versions.get(key) !== rv) changed++;
  return changed + Math.max(0, after.events - before.events);
}

interface Snapshot {
  requests: number;
  writes: number;
  reconciles: number;
  rssMiB: number;
  cached: number;
  errors: number;
  reconcileSeconds: number;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'apply', 'delete']);

async function snapshot(controller: ControllerProcess): Promise<Snapshot> {
  const s = parseSamples(await controller.metrics());
  const requests = 'colony_controller_kubernetes_requests_total';
  // Lease renewals are the elector's heartbeat, not reconcile traffic.
  const notLease = (l: Record<string, string>) => l.resource !== 'leases';
  return {
    requests: sum(s, requests, notLease),
    writes: sum(s, requests, (l) => notLease(l) && WRITE_VERBS.has(l.verb ?? '')),
    reconciles: sum(s, 'colony_controller_reconcile_duration_seconds_count'),
    rssMiB: sum(s, 'colony_controller_process_resident_memory_bytes') / 2 ** 20,
    cached: sum(s, 'colony_controller_cached_objects'),
    errors: sum(s, 'colony_controller_reconcile_errors_total'),
    reconcileSeconds: sum(s, 'colony_controller_reconcile_duration_seconds_sum'),
  };
}

const diff = (a: Snapshot, b: Snapshot) => ({
  requests: b.requests - a.requests,
  writes: b.writes - a.writes,
  reconciles: b.reconciles - a.reconciles,
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`controller bench: ${what} not reached in ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Waits until the controller has nothing queued and nothing changed for a moment. */
async function settle(controller: ControllerProcess): Promise<Snapshot> {
  let last = await snapshot(controller);
  for (;;) {
    await sleep(1_500);
    const now = await snapshot(controller);
    if (now.reconciles === last.reconciles && now.writes === last.writes) return now;
    last = now;
  }
}

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

export async function benchController(opts: ControllerBenchOptions): Promise<boolean | 'skipped'> {
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
      lease: `colony-system/colony-bench-${runId}`,
      env: {
        COLONY_CONTROLLER_RESYNC_SECONDS: String(RESYNC_SECONDS),
        COLONY_CONTROLLER_WORKERS: String(WORKERS),
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

    // 4. Memory with a large cache.
    const extra = Math.max(0, opts.cachedObjects - (await snapshot(c)).cached);
    await cluster.createInstanceSecrets(extra, 16);
    await waitFor(async () => (await snapshot(c)).cached >= opts.cachedObjects, 120_000, 'cache size');
    const big = await settle(c);

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
        `controller RSS with ${big.cached} cached objects`,
        `${big.rssMiB.toFixed(0)} MiB (${converged.rssMiB.toFixed(0)} MiB at ${converged.cached})`,
      ],
      [
        `baseline: the same ${converged.writes} writes, bare, ${WORKERS} in flight`,
        `${(bareMs / 1000).toFixed(2)} s (${msPerWrite.toFixed(1)} ms per write; before ${((bareBeforeMs / bareBeforeWrites) * 1000).toFixed(0)} µs, after ${((bareAfterMs / converged.writes) * 1000).toFixed(0)} µs)`,
      ],
      ['ratio controller / bare (target <= 1.5)', ratio.toFixed(2)],
    ]);
    return ratio <= 1.5 && resyncWrites === 0;
  } finally {
    watch.stop();
    controller?.child.kill('SIGKILL');
    await cluster.dispose();
  }
}
