// Controller memory: a cold controller started on the bench's converged cluster, caches trimmed or
// whole, measured once settled and again after a full GC forced through the V8 inspector (what it
// holds, not what V8 has yet to collect); and the chart's memory limit and heap cap.
import { loadAllYaml, type V1Deployment } from '@kubernetes/client-node';
import { freePort, startControllerProcess } from '../../support/controller-process.ts';
import { chartDir, helm, setJson } from '../../support/helm.ts';
import { type Snapshot, settle, sleep, snapshot, waitFor } from './snapshot.ts';

/** Asks the process behind an inspector port for a full garbage collection. */
async function collectGarbage(port: number): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error('controller bench: no inspector target');
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  for (const id of [1, 2]) {
    const done = new Promise<void>((resolve) => {
      ws.onmessage = (m) => {
        if ((JSON.parse(String(m.data)) as { id?: number }).id === id) resolve();
      };
    });
    ws.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
    await done;
  }
  ws.close();
}

export interface MemoryProbe {
  settled: Snapshot;
  collected: Snapshot;
  syncMs: number;
}

/** A cold controller (caches trimmed or whole) until it has reconciled everything, then a full GC. */
export async function probeMemory(opts: {
  lease: string;
  trim: boolean;
  nodeOptions: string;
}): Promise<MemoryProbe> {
  const inspect = await freePort();
  const started = performance.now();
  const c = await startControllerProcess({
    lease: opts.lease,
    env: {
      COLONY_CONTROLLER_TRIM_CACHE: String(opts.trim),
      COLONY_CONTROLLER_RESYNC_SECONDS: '3600',
      NODE_OPTIONS: `${opts.nodeOptions} --inspect=127.0.0.1:${inspect} --inspect-publish-uid=http`,
    },
  });
  try {
    await waitFor(async () => (await c.ready())?.leader === true, 120_000, 'leadership and synced caches');
    const syncMs = performance.now() - started;
    const settled = await settle(c);
    await collectGarbage(inspect);
    await sleep(500);
    return { settled, collected: await snapshot(c), syncMs };
  } finally {
    c.child.kill('SIGTERM');
    await c.exited;
  }
}

export interface ChartController {
  limitMiB: number;
  /** NODE_OPTIONS the chart gives the controller (its heap cap), so the bench runs it the same way. */
  nodeOptions: string;
}

/** The controller's memory limit and NODE_OPTIONS, as `helm template` renders the chart's defaults. */
export function chartController(): ChartController {
  // The defaults, with a fixed token: a render without a cluster may not generate one.
  const token = setJson({ 'secrets.bootstrapToken': 'a-bench-render-token-0123456789' });
  const docs = loadAllYaml(helm(['template', 'x', chartDir, ...token])) as V1Deployment[];
  const container = docs.find((d) => d.kind === 'Deployment' && d.metadata?.name === 'x-colony-controller')
    ?.spec?.template.spec?.containers[0];
  const limit = String(container?.resources?.limits?.memory ?? '');
  const m = /^(\d+)(Mi|Gi)$/.exec(limit);
  if (!m) throw new Error(`controller bench: cannot read the chart's controller memory limit ${limit}`);
  return {
    limitMiB: Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1),
    nodeOptions: container?.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '',
  };
}
