// Pure metering: how much a pod weighs against the standard agent pod, when it ran, and the ledger
// after counting every pod up to now. The usage meter (usage-meter.ts) does the reading and writing.
import type { V1Pod } from '@kubernetes/client-node';
import { KEPT_PERIODS, STANDARD_WEIGHT, type UsageLedger, usagePeriod } from '../../cluster/usage-ledger.ts';

const STANDARD_CPU = 1; // cores
const STANDARD_MEMORY = 2 * 1024 ** 3; // bytes

const SUFFIXES: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
};

/** A Kubernetes quantity (`500m`, `1.5Gi`, `2e3`) as a number; 0 when absent or unreadable. */
export function quantity(q: string | number | undefined): number {
  if (q === undefined) return 0;
  if (typeof q === 'number') return q;
  const m = /^([0-9.]+(?:[eE][-+]?[0-9]+)?)([a-zA-Z]*)$/.exec(q.trim());
  const scale = m ? SUFFIXES[m[2] ?? ''] : undefined;
  return m && scale !== undefined ? Number(m[1]) * scale : 0;
}

/**
 * Thousandths of a credit per hour: the larger of the pod's CPU and memory requests against the
 * standard pod (1 vCPU, 2 GiB), rounded up to the next thousandth. A pod that requests nothing weighs
 * one standard pod: it may use as much.
 */
export function podWeight(pod: V1Pod): number {
  let cpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    cpu += quantity(c.resources?.requests?.cpu);
    memory += quantity(c.resources?.requests?.memory);
  }
  if (cpu === 0 && memory === 0) return STANDARD_WEIGHT;
  const ratio = Math.max(cpu / STANDARD_CPU, memory / STANDARD_MEMORY);
  // The epsilon keeps a float like 0.5000000001 × 1000 from rounding up a thousandth.
  return Math.max(1, Math.ceil(ratio * STANDARD_WEIGHT - 1e-6));
}

const seconds = (t: Date | string | undefined): number | undefined =>
  t === undefined ? undefined : Math.floor(new Date(t).getTime() / 1000);

/**
 * When the pod ran, in epoch seconds: from status.startTime until every container terminated (the
 * last finishedAt) or, failing that, until its deletion deadline; `end` undefined while it runs.
 * A pod the kubelet has not started yet has no span.
 */
export function runningSpan(pod: V1Pod): { start: number; end: number | undefined } | undefined {
  const start = seconds(pod.status?.startTime);
  if (start === undefined) return undefined;
  const finished = (pod.status?.containerStatuses ?? []).map((s) => seconds(s.state?.terminated?.finishedAt));
  const deleted = seconds(pod.metadata?.deletionTimestamp);
  const phase = pod.status?.phase;
  const allTerminated = finished.length > 0 && finished.every((f) => f !== undefined);
  if (phase === 'Succeeded' || phase === 'Failed' || (deleted !== undefined && allTerminated)) {
    const last = finished.filter((f) => f !== undefined);
    return { start, end: Math.max(start, ...(last.length > 0 ? last : [deleted ?? start])) };
  }
  return { start, end: deleted };
}

/** Adds `weight` × seconds of [from, to) to each calendar month it overlaps. */
function addSpan(periods: UsageLedger['periods'], weight: number, from: number, to: number): void {
  let at = from;
  while (at < to) {
    const period = usagePeriod(at * 1000);
    const d = new Date(at * 1000);
    const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
    const until = Math.min(to, monthEnd);
    periods[period] = (periods[period] ?? 0) + weight * (until - at);
    at = until;
  }
}

export interface AdvanceOptions {
  /** Now, epoch ms. */
  now: number;
  /** A pod absent this long after it was last counted is forgotten (it was deleted while unseen). */
  forgetAfterSeconds: number;
}

/**
 * The ledger after counting each pod from its watermark (or start) up to its end or now. Counting is
 * monotonic: a watermark only moves forward, so recounting the same state adds nothing, and a second
 * writer that re-reads the ledger after a conflict cannot count the same second twice.
 */
export function advanceLedger(
  ledger: UsageLedger,
  pods: readonly V1Pod[],
  o: AdvanceOptions,
): { ledger: UsageLedger; changed: boolean } {
  const nowS = Math.floor(o.now / 1000);
  const next: UsageLedger = { version: 1, pods: { ...ledger.pods }, periods: { ...ledger.periods } };
  let changed = false;
  const seen = new Set<string>();
  for (const pod of pods) {
    const uid = pod.metadata?.uid;
    if (!uid) continue;
    seen.add(uid);
    changed = countPod(next, uid, pod, nowS) || changed;
  }
  changed = forgetGone(next, seen, nowS - o.forgetAfterSeconds) || changed;
  return { ledger: next, changed: dropOldPeriods(next, o.now) || changed };
}

/** Counts one pod from its watermark (or start) to its end or now; true when its entry moved. */
function countPod(ledger: UsageLedger, uid: string, pod: V1Pod, nowS: number): boolean {
  const span = runningSpan(pod);
  if (!span) return false;
  const entry = ledger.pods[uid];
  // The weight is fixed at first sight: a resize counts from the pod's next incarnation.
  const weight = entry?.[0] ?? podWeight(pod);
  const from = Math.max(entry?.[1] ?? span.start, span.start);
  const to = Math.min(span.end ?? nowS, nowS);
  if (to > from) addSpan(ledger.periods, weight, from, to);
  if (entry && to <= entry[1]) return false;
  ledger.pods[uid] = [weight, Math.max(from, to)];
  return true;
}

function forgetGone(ledger: UsageLedger, seen: Set<string>, before: number): boolean {
  let changed = false;
  for (const [uid, [, until]] of Object.entries(ledger.pods)) {
    if (!seen.has(uid) && until < before) {
      delete ledger.pods[uid];
      changed = true;
    }
  }
  return changed;
}

function dropOldPeriods(ledger: UsageLedger, now: number): boolean {
  const d = new Date(now);
  const oldest = usagePeriod(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (KEPT_PERIODS - 1), 1));
  let changed = false;
  for (const period of Object.keys(ledger.periods)) {
    if (period < oldest) {
      delete ledger.periods[period];
      changed = true;
    }
  }
  return changed;
}
