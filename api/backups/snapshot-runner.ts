// Takes a snapshot part by part and restores one, as durable jobs: each part's outcome is saved as
// soon as it is known, so a retried job resumes where the last attempt stopped.
import type { JobRecord } from '../domain/jobs/jobs-repo.ts';
import type { BlobStore } from './blob-store.ts';
import { captureOfficeDatabase, RestoreRefusedError, restoreOfficeDatabase } from './office-database.ts';
import type { OfficeResources } from './office-resources.ts';
import type { OfficeVolumes } from './office-volumes.ts';
import type { RestoreReport, SnapshotParts } from './schemas.ts';
import { outcomeOf } from './snapshot-model.ts';
import type { SnapshotRecord, SnapshotsRepo } from './snapshots-repo.ts';

export interface RunnerDeps {
  repo: SnapshotsRepo;
  blobs: BlobStore;
  resources: OfficeResources | undefined;
  volumes: OfficeVolumes | undefined;
  officeDatabaseUrl: string | undefined;
  now: () => number;
  /** The job runner's: aborted when it stops, which closes database connections mid-dump. */
  signal?: AbortSignal;
}

type PartName = keyof SnapshotParts;
const PART_NAMES: PartName[] = ['resources', 'database', 'volumes'];
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const isFinal = (job: JobRecord) => job.attempts >= job.maxAttempts;

/**
 * Errors a retry cannot cure: PostgreSQL's access and authorization classes (42, 28) and a missing
 * database (3D). Anything else (connections, API server hiccups) is retried with backoff.
 */
export function isPermanent(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^(42|28|3D)/.test(code);
}

/** Why a cluster part cannot run, or undefined when it can. */
function clusterGap(deps: RunnerDeps, namespace: string | undefined, officeId: string): string | undefined {
  if (!deps.resources) return 'No Kubernetes cluster is configured.';
  if (!namespace) return `No namespace is labelled colony.ai/office=${officeId}.`;
  return undefined;
}

async function capturePart(
  deps: RunnerDeps,
  s: SnapshotRecord,
  name: PartName,
  parts: SnapshotParts,
  namespace: string | undefined,
): Promise<SnapshotParts[PartName]> {
  const args = { blobs: deps.blobs, officeId: s.officeId, snapshotId: s.id, namespace: namespace ?? '' };
  if (name === 'database')
    return captureOfficeDatabase({ ...args, adminUrl: deps.officeDatabaseUrl, signal: deps.signal });
  const gap = clusterGap(deps, namespace, s.officeId);
  if (gap) return { ...parts[name], status: 'failed', detail: gap } as SnapshotParts[PartName];
  if (name === 'resources') return (deps.resources as OfficeResources).capture(args);
  const volumes = deps.volumes as OfficeVolumes;
  // Already taken: only look again at VolumeSnapshots that were not ready.
  return parts.volumes.items.some((i) => i.volumeSnapshot)
    ? volumes.refresh(args.namespace, parts.volumes)
    : volumes.capture(args);
}

/** Marks whatever is still pending as failed: the last attempt is over. */
function giveUp(parts: SnapshotParts, name: PartName, reason: string): SnapshotParts {
  if (name === 'volumes') {
    const items = parts.volumes.items.map((i) =>
      i.status === 'pending' ? { ...i, status: 'failed' as const, reason } : i,
    );
    return { ...parts, volumes: { status: 'failed', items, detail: reason } };
  }
  return { ...parts, [name]: { ...parts[name], status: 'failed', detail: reason } };
}

/**
 * Runs every part still pending, the three at once (they touch different systems), saving each
 * outcome as it arrives; on the last attempt, or for an error no retry cures, the part fails.
 */
async function captureParts(
  deps: RunnerDeps,
  s: SnapshotRecord,
  job: JobRecord,
  namespace: string | undefined,
): Promise<SnapshotParts> {
  const initial = s.parts as SnapshotParts;
  let parts = initial;
  let saved = Promise.resolve();
  // Writes are chained so each one carries every outcome merged so far.
  const record = (next: (p: SnapshotParts) => SnapshotParts) => {
    parts = next(parts);
    saved = saved.then(() => deps.repo.update(s.id, { parts }, deps.now()).then(() => undefined));
    return saved;
  };
  const pending = PART_NAMES.filter((name) => initial[name].status === 'pending');
  const outcomes = await Promise.allSettled(
    pending.map(async (name) => {
      try {
        const value = await capturePart(deps, s, name, initial, namespace);
        await record((p) => ({ ...p, [name]: value }));
      } catch (err) {
        if (!isFinal(job) && !isPermanent(err)) throw err;
        await record((p) => giveUp(p, name, message(err)));
      }
    }),
  );
  await saved;
  const retry = outcomes.find((o) => o.status === 'rejected');
  if (retry) throw retry.reason;
  if (parts.volumes.status !== 'pending') return parts;
  if (!isFinal(job)) throw new Error('VolumeSnapshots are not ready yet; looking again later');
  return giveUp(parts, 'volumes', `Not ready after ${job.attempts} attempts.`);
}

const failureSummary = (entries: [string, { status: string; detail?: string | undefined } | undefined][]) => {
  const failed = entries.filter(([, p]) => p?.status === 'failed');
  return failed.length ? failed.map(([n, p]) => `${n}: ${p?.detail ?? 'failed'}`).join(' ') : null;
};

export async function runSnapshot(deps: RunnerDeps, snapshotId: string, job: JobRecord): Promise<unknown> {
  const { repo, now } = deps;
  const found = await repo.get(snapshotId);
  if (!found || !['pending', 'running'].includes(found.status))
    return { snapshotId, status: found?.status ?? 'missing' };
  const started = { status: 'running' as const, startedAt: found.startedAt ?? now() };
  const s = (await repo.update(snapshotId, started, now(), ['pending', 'running'])) ?? found;
  const namespace = await deps.resources?.officeNamespace(s.officeId);
  const parts = await captureParts(deps, s, job, namespace);
  const status = outcomeOf(parts) === 'completed' ? 'completed' : 'failed';
  await repo.update(
    snapshotId,
    {
      parts,
      status,
      completedAt: now(),
      sizeBytes: await deps.blobs.size(snapshotId),
      error: failureSummary(Object.entries(parts)),
    },
    now(),
  );
  return { snapshotId, status };
}

/** The restore report a request starts with: one pending entry per requested part. */
export function pendingReport(parts: readonly PartName[]): RestoreReport {
  const report: RestoreReport = {};
  if (parts.includes('resources')) report.resources = { status: 'pending', applied: [] };
  if (parts.includes('database')) report.database = { status: 'pending', tables: 0, rows: 0 };
  if (parts.includes('volumes')) report.volumes = { status: 'pending', items: [] };
  return report;
}

async function restorePart(
  deps: RunnerDeps,
  s: SnapshotRecord,
  name: PartName,
  namespace: string | undefined,
): Promise<NonNullable<RestoreReport[PartName]>> {
  const captured = (s.parts as SnapshotParts)[name];
  const nothing = {
    status: 'skipped' as const,
    detail: `The snapshot holds no ${name}. ${captured.detail ?? `That part was ${captured.status}.`}`,
  };
  if (captured.status !== 'completed') {
    if (name === 'resources') return { ...nothing, applied: [] };
    if (name === 'database') return { ...nothing, tables: 0, rows: 0 };
    return { ...nothing, items: [] };
  }
  const args = { blobs: deps.blobs, snapshotId: s.id, officeId: s.officeId, namespace: namespace ?? '' };
  if (name === 'database')
    return restoreOfficeDatabase({ ...args, adminUrl: deps.officeDatabaseUrl, signal: deps.signal });
  const gap = clusterGap(deps, namespace, s.officeId);
  if (gap) throw new RestoreRefusedError(gap);
  if (name === 'resources') return (deps.resources as OfficeResources).restore(args);
  return (deps.volumes as OfficeVolumes).restore({ ...args, part: (s.parts as SnapshotParts).volumes });
}

const failedEntry = (name: PartName, detail: string) =>
  name === 'resources'
    ? { status: 'failed' as const, applied: [], detail }
    : name === 'database'
      ? { status: 'failed' as const, tables: 0, rows: 0, detail }
      : { status: 'failed' as const, items: [], detail };

async function restoreEntry(
  deps: RunnerDeps,
  s: SnapshotRecord | undefined,
  name: PartName,
  namespace: string | undefined,
  job: JobRecord,
): Promise<NonNullable<RestoreReport[PartName]>> {
  try {
    if (s?.status !== 'completed') throw new RestoreRefusedError('The snapshot was deleted.');
    return await restorePart(deps, s, name, namespace);
  } catch (err) {
    if (!(err instanceof RestoreRefusedError) && !isPermanent(err) && !isFinal(job)) throw err;
    return failedEntry(name, message(err));
  }
}

export async function runRestore(deps: RunnerDeps, restoreId: string, job: JobRecord): Promise<unknown> {
  const { repo, now } = deps;
  const r = await repo.getRestore(restoreId);
  if (!r || !['pending', 'running'].includes(r.status)) return { restoreId, status: r?.status ?? 'missing' };
  await repo.updateRestore(restoreId, { status: 'running' }, now());
  let report = r.report as RestoreReport;
  const s = await repo.get(r.snapshotId);
  const namespace = await deps.resources?.officeNamespace(r.officeId);
  for (const name of PART_NAMES) {
    if (report[name]?.status !== 'pending') continue;
    report = { ...report, [name]: await restoreEntry(deps, s, name, namespace, job) };
    await repo.updateRestore(restoreId, { report }, now());
  }
  const error = failureSummary(Object.entries(report));
  const status = error ? 'failed' : 'completed';
  await repo.updateRestore(restoreId, { status, completedAt: now(), error }, now());
  return { restoreId, status };
}
