// Pure: snapshot ids, the initial part report, response shapes, list cursors and schedule times.
import { randomHex } from '../shared/random-id.ts';
import type { RestoreReport, SnapshotParts } from './schemas.ts';
import type { RestoreRecord, ScheduleRecord, SnapshotRecord } from './snapshots-repo.ts';

export const newSnapshotId = (): string => `snap_${randomHex(12)}`;
export const newRestoreId = (): string => `rst_${randomHex(12)}`;

/** The Kubernetes name of the Secret holding a snapshot's credential values (DNS-1123, no `_`). */
export const snapshotSecretName = (snapshotId: string): string =>
  `colony-snapshot-${snapshotId.replace(/^snap_/, '')}`;

export function initialParts(): SnapshotParts {
  return {
    resources: { status: 'pending', integrations: 0, agentBindings: 0, secrets: 0, secretName: null },
    database: { status: 'pending', database: null, tables: 0, rows: 0, bytes: 0 },
    volumes: { status: 'pending', items: [] },
  };
}

/** A snapshot is complete when no part is pending; it failed when any part failed. */
export function outcomeOf(parts: SnapshotParts): 'running' | 'completed' | 'failed' {
  const statuses = [parts.resources.status, parts.database.status, parts.volumes.status];
  if (statuses.includes('pending')) return 'running';
  return statuses.includes('failed') ? 'failed' : 'completed';
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const snapshotUrl = (baseUrl: string, id: string) => `${baseUrl}/api/snapshots/${id}`;
export const restoreUrl = (baseUrl: string, snapshotId: string, id: string) =>
  `${snapshotUrl(baseUrl, snapshotId)}/restores/${id}`;

export function presentSnapshot(baseUrl: string, s: SnapshotRecord) {
  return {
    id: s.id,
    office: s.officeId,
    status: s.status,
    trigger: s.trigger,
    description: s.description,
    sizeBytes: s.sizeBytes,
    parts: s.parts as SnapshotParts,
    error: s.error,
    createdAt: new Date(s.createdAt).toISOString(),
    startedAt: iso(s.startedAt),
    completedAt: iso(s.completedAt),
    deletedAt: iso(s.deletedAt),
    links: { self: snapshotUrl(baseUrl, s.id), restore: `${snapshotUrl(baseUrl, s.id)}/restore` },
  };
}

export function presentRestore(baseUrl: string, r: RestoreRecord) {
  return {
    id: r.id,
    snapshotId: r.snapshotId,
    office: r.officeId,
    status: r.status,
    report: r.report as RestoreReport,
    error: r.error,
    createdAt: new Date(r.createdAt).toISOString(),
    completedAt: iso(r.completedAt),
    links: { self: restoreUrl(baseUrl, r.snapshotId, r.id), snapshot: snapshotUrl(baseUrl, r.snapshotId) },
  };
}

export function presentSchedule(s: ScheduleRecord) {
  return {
    office: s.officeId,
    enabled: s.enabled,
    frequency: 'daily' as const,
    hourUtc: s.hourUtc,
    retentionDays: s.retentionDays,
    nextRunAt: s.enabled ? new Date(s.nextRunAt).toISOString() : null,
  };
}

/** Keyset cursor over (createdAt, id), newest first; opaque base64url JSON. */
export function encodeSnapshotCursor(s: { createdAt: number; id: string }): string {
  return Buffer.from(JSON.stringify({ v: 1, t: s.createdAt, id: s.id })).toString('base64url');
}

export function decodeSnapshotCursor(cursor: string): { createdAt: number; id: string } | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (v.v !== 1 || !Number.isSafeInteger(v.t) || typeof v.id !== 'string') return undefined;
    return { createdAt: v.t as number, id: v.id };
  } catch {
    return undefined;
  }
}

export const DAY_MS = 86_400_000;
export const DEFAULT_SCHEDULE = { enabled: true, hourUtc: 3, retentionDays: 30 } as const;

/** The first daily run at `hourUtc` strictly after `now`. */
export function nextDailyRun(now: number, hourUtc: number): number {
  const day = Math.floor(now / DAY_MS) * DAY_MS;
  const today = day + hourUtc * 3_600_000;
  return today > now ? today : today + DAY_MS;
}
