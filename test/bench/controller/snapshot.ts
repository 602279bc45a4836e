// The controller's own figures, read from its /metrics, and the waits the benchmark builds on them.
import type { ControllerProcess } from '../../support/controller-process.ts';
import { parseSamples, sum } from './prometheus-text.ts';

export interface Snapshot {
  requests: number;
  writes: number;
  reconciles: number;
  rssMiB: number;
  heapUsedMiB: number;
  cached: number;
  errors: number;
  reconcileSeconds: number;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'apply', 'delete']);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function snapshot(controller: ControllerProcess): Promise<Snapshot> {
  const s = parseSamples(await controller.metrics());
  const requests = 'colony_controller_kubernetes_requests_total';
  // Lease renewals are the elector's heartbeat, not reconcile traffic.
  const notLease = (l: Record<string, string>) => l.resource !== 'leases';
  return {
    requests: sum(s, requests, notLease),
    writes: sum(s, requests, (l) => notLease(l) && WRITE_VERBS.has(l.verb ?? '')),
    reconciles: sum(s, 'colony_controller_reconcile_duration_seconds_count'),
    rssMiB: sum(s, 'colony_controller_process_resident_memory_bytes') / 2 ** 20,
    heapUsedMiB: sum(s, 'colony_controller_nodejs_heap_size_used_bytes') / 2 ** 20,
    cached: sum(s, 'colony_controller_cached_objects'),
    errors: sum(s, 'colony_controller_reconcile_errors_total'),
    reconcileSeconds: sum(s, 'colony_controller_reconcile_duration_seconds_sum'),
  };
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`controller bench: ${what} not reached in ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Waits until the controller has nothing queued and nothing changed for a moment. */
export async function settle(controller: ControllerProcess): Promise<Snapshot> {
  let last = await snapshot(controller);
  for (;;) {
    await sleep(1_500);
    const now = await snapshot(controller);
    if (now.reconciles === last.reconciles && now.writes === last.writes) return now;
    last = now;
  }
}
