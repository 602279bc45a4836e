// Snapshot metadata, restores and per-office schedules; never a secret value (those stay in Kubernetes).
import { readJson, writeJson } from '../storage/json-column.ts';
import { type SqlDriver, type SqlValue, UniqueViolationError } from '../storage/sql-driver.ts';

/** pending → running → completed | failed; deleted is a tombstone kept so a late restore is told why. */
export const snapshotStatuses = ['pending', 'running', 'completed', 'failed', 'deleted'] as const;
export type SnapshotStatus = (typeof snapshotStatuses)[number];
export const restoreStatuses = ['pending', 'running', 'completed', 'failed'] as const;
export type RestoreStatus = (typeof restoreStatuses)[number];

/** Another restore of the office is pending or running. */
export class RestoreInProgressError extends Error {
  override readonly name = 'RestoreInProgressError';
  readonly officeId: string;
  constructor(officeId: string) {
    super(`a restore of office ${officeId} is already in progress`);
    this.officeId = officeId;
  }
}

export interface SnapshotRecord {
  id: string;
  officeId: string;
  status: SnapshotStatus;
  trigger: 'manual' | 'schedule';
  description: string | null;
  parts: unknown;
  sizeBytes: number;
  error: string | null;
  createdBy: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  jobId: string | null;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  completedAt: number | null;
  deletedAt: number | null;
}

export interface RestoreRecord {
  id: string;
  snapshotId: string;
  officeId: string;
  status: RestoreStatus;
  report: unknown;
  error: string | null;
  createdBy: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  jobId: string | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

export interface ScheduleRecord {
  officeId: string;
  enabled: boolean;
  hourUtc: number;
  retentionDays: number;
  nextRunAt: number;
  updatedAt: number;
}

export type SnapshotPatch = Partial<
  Pick<SnapshotRecord, 'status' | 'parts' | 'sizeBytes' | 'error' | 'startedAt' | 'completedAt' | 'jobId'>
>;
export type RestorePatch = Partial<
  Pick<RestoreRecord, 'status' | 'report' | 'error' | 'completedAt' | 'jobId'>
>;

type Row = Record<string, unknown>;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const toSnapshot = (r: Row): SnapshotRecord => ({
  id: String(r.id),
  officeId: String(r.office_id),
  status: r.status as SnapshotStatus,
  trigger: r.trigger as SnapshotRecord['trigger'],
  description: str(r.description),
  parts: readJson(r.parts),
  sizeBytes: Number(r.size_bytes),
  error: str(r.error),
  createdBy: String(r.created_by),
  idempotencyKey: str(r.idempotency_key),
  requestHash: str(r.request_hash),
  jobId: str(r.job_id),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  startedAt: num(r.started_at),
  completedAt: num(r.completed_at),
  deletedAt: num(r.deleted_at),
});

const toRestore = (r: Row): RestoreRecord => ({
  id: String(r.id),
  snapshotId: String(r.snapshot_id),
  officeId: String(r.office_id),
  status: r.status as RestoreStatus,
  report: readJson(r.report),
  error: str(r.error),
  createdBy: String(r.created_by),
  idempotencyKey: str(r.idempotency_key),
  requestHash: str(r.request_hash),
  jobId: str(r.job_id),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  completedAt: num(r.completed_at),
});

const toSchedule = (r: Row): ScheduleRecord => ({
  officeId: String(r.office_id),
  enabled: Number(r.enabled) === 1,
  hourUtc: Number(r.hour_utc),
  retentionDays: Number(r.retention_days),
  nextRunAt: Number(r.next_run_at),
  updatedAt: Number(r.updated_at),
});

const snapshotColumns: Record<keyof SnapshotPatch, string> = {
  status: 'status',
  parts: 'parts',
  sizeBytes: 'size_bytes',
  error: 'error',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  jobId: 'job_id',
};
const restoreColumns: Record<keyof RestorePatch, string> = {
  status: 'status',
  report: 'report',
  error: 'error',
  completedAt: 'completed_at',
  jobId: 'job_id',
};

/** `SET a = $3, b = $4 …` for the keys present in `patch`; JSON columns are serialised. */
function setClause(
  patch: Record<string, unknown>,
  columns: Record<string, string>,
  first: number,
): { sql: string; params: SqlValue[] } {
  const sets: string[] = [];
  const params: SqlValue[] = [];
  for (const [key, column] of Object.entries(columns)) {
    if (!(key in patch)) continue;
    const value = patch[key];
    params.push(key === 'parts' || key === 'report' ? writeJson(value) : ((value ?? null) as SqlValue));
    sets.push(`${column} = $${first + params.length - 1}`);
  }
  return { sql: sets.join(', '), params };
}

export interface ListQuery {
  /** Offices the caller may see; `*` for every office. */
  offices: string[] | '*';
  officeId?: string | undefined;
  status?: SnapshotStatus | undefined;
  limit: number;
  /** Keyset position: rows strictly older than this (newest first). */
  before?: { createdAt: number; id: string } | undefined;
}

export class SnapshotsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Inserts unless the idempotency key is taken; then answers the snapshot holding the key. */
  async create(
    s: Pick<SnapshotRecord, 'id' | 'officeId' | 'trigger' | 'description' | 'parts' | 'createdBy'> & {
      idempotencyKey?: string | undefined;
      requestHash?: string | undefined;
    },
    now: number,
  ): Promise<{ snapshot: SnapshotRecord; created: boolean }> {
    const rows = await this.db.query<Row>(
      `INSERT INTO snapshots (id, office_id, status, trigger, description, parts, created_by, idempotency_key,
         request_hash, created_at, updated_at)
       VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7, $8, $9, $9)
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING *`,
      [
        s.id,
        s.officeId,
        s.trigger,
        s.description,
        writeJson(s.parts),
        s.createdBy,
        s.idempotencyKey ?? null,
        s.requestHash ?? null,
        now,
      ],
    );
    if (rows[0]) return { snapshot: toSnapshot(rows[0]), created: true };
    const [held] = await this.db.query<Row>('SELECT * FROM snapshots WHERE idempotency_key = $1', [
      s.idempotencyKey ?? null,
    ]);
    if (!held) throw new Error('idempotency key conflict but no snapshot holds the key');
    return { snapshot: toSnapshot(held), created: false };
  }

  async get(id: string): Promise<SnapshotRecord | undefined> {
    const [row] = await this.db.query<Row>('SELECT * FROM snapshots WHERE id = $1', [id]);
    return row ? toSnapshot(row) : undefined;
  }

  /** Newest first; deleted snapshots only when asked for by status. */
  async list(q: ListQuery): Promise<SnapshotRecord[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (sql: string, ...values: SqlValue[]) => {
      let clause = sql;
      for (const v of values) {
        params.push(v);
        clause = clause.replace('?', `$${params.length}`);
      }
      where.push(clause);
    };
    if (q.offices !== '*') {
      if (q.offices.length === 0) return [];
      add(`office_id IN (${q.offices.map(() => '?').join(', ')})`, ...q.offices);
    }
    if (q.officeId) add('office_id = ?', q.officeId);
    if (q.status) add('status = ?', q.status);
    else where.push("status <> 'deleted'");
    if (q.before)
      add(
        '(created_at < ? OR (created_at = ? AND id < ?))',
        q.before.createdAt,
        q.before.createdAt,
        q.before.id,
      );
    params.push(q.limit);
    const rows = await this.db.query<Row>(
      `SELECT * FROM snapshots WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toSnapshot);
  }

  /** Applies the patch; `onlyIf` makes it conditional on the current status (a lost race answers undefined). */
  async update(
    id: string,
    patch: SnapshotPatch,
    now: number,
    onlyIf?: readonly SnapshotStatus[],
  ): Promise<SnapshotRecord | undefined> {
    const set = setClause(patch, snapshotColumns, 3);
    const guard = onlyIf ? ` AND status IN (${onlyIf.map((s) => `'${s}'`).join(', ')})` : '';
    const rows = await this.db.query<Row>(
      `UPDATE snapshots SET updated_at = $2${set.sql ? `, ${set.sql}` : ''} WHERE id = $1${guard} RETURNING *`,
      [id, now, ...set.params],
    );
    return rows[0] ? toSnapshot(rows[0]) : undefined;
  }

  /** Tombstones a finished snapshot; undefined when it is still being taken (or already gone). */
  async markDeleted(id: string, now: number): Promise<SnapshotRecord | undefined> {
    const rows = await this.db.query<Row>(
      `UPDATE snapshots SET status = 'deleted', deleted_at = $2, updated_at = $2
       WHERE id = $1 AND status IN ('completed', 'failed') RETURNING *`,
      [id, now],
    );
    return rows[0] ? toSnapshot(rows[0]) : undefined;
  }

  /** Scheduled snapshots of an office older than `before`, which retention removes. */
  async expired(officeId: string, before: number): Promise<SnapshotRecord[]> {
    const rows = await this.db.query<Row>(
      `SELECT * FROM snapshots WHERE office_id = $1 AND trigger = 'schedule' AND created_at < $2
         AND status IN ('completed', 'failed') ORDER BY created_at`,
      [officeId, before],
    );
    return rows.map(toSnapshot);
  }

  /** Snapshots whose job was never enqueued (the process died in between), created before `before`. */
  async orphans(before: number): Promise<SnapshotRecord[]> {
    const rows = await this.db.query<Row>(
      `SELECT * FROM snapshots WHERE status = 'pending' AND job_id IS NULL AND created_at < $1`,
      [before],
    );
    return rows.map(toSnapshot);
  }

  /**
   * Inserts the restore unless its idempotency key is taken (then answers the holder). Throws
   * RestoreInProgressError when another restore of the office is pending or running: a partial
   * unique index decides that race in the database.
   */
  async createRestore(
    r: Pick<RestoreRecord, 'id' | 'snapshotId' | 'officeId' | 'createdBy' | 'report'> & {
      idempotencyKey?: string | undefined;
      requestHash?: string | undefined;
    },
    now: number,
  ): Promise<{ restore: RestoreRecord; created: boolean }> {
    const held = async () => {
      if (!r.idempotencyKey) return undefined;
      const [row] = await this.db.query<Row>('SELECT * FROM snapshot_restores WHERE idempotency_key = $1', [
        r.idempotencyKey,
      ]);
      return row ? { restore: toRestore(row), created: false } : undefined;
    };
    const replay = await held();
    if (replay) return replay;
    let rows: Row[];
    try {
      rows = await this.db.query<Row>(
        `INSERT INTO snapshot_restores (id, snapshot_id, office_id, status, report, created_by, idempotency_key,
           request_hash, created_at, updated_at)
         VALUES ($1, $2, $3, 'pending', $8, $4, $5, $6, $7, $7)
         ON CONFLICT (idempotency_key) DO NOTHING RETURNING *`,
        [
          r.id,
          r.snapshotId,
          r.officeId,
          r.createdBy,
          r.idempotencyKey ?? null,
          r.requestHash ?? null,
          now,
          writeJson(r.report),
        ],
      );
    } catch (err) {
      if (!(err instanceof UniqueViolationError)) throw err;
      rows = [];
    }
    if (rows[0]) return { restore: toRestore(rows[0]), created: true };
    const raced = await held();
    if (raced) return raced;
    throw new RestoreInProgressError(r.officeId);
  }

  /** Restores of a snapshot (or of every snapshot of an office) still pending or running. */
  async activeRestores(where: { snapshotId: string } | { officeId: string }): Promise<RestoreRecord[]> {
    const [column, value] =
      'snapshotId' in where ? ['snapshot_id', where.snapshotId] : ['office_id', where.officeId];
    const rows = await this.db.query<Row>(
      `SELECT * FROM snapshot_restores WHERE ${column} = $1 AND status IN ('pending', 'running')`,
      [value],
    );
    return rows.map(toRestore);
  }

  async getRestore(id: string): Promise<RestoreRecord | undefined> {
    const [row] = await this.db.query<Row>('SELECT * FROM snapshot_restores WHERE id = $1', [id]);
    return row ? toRestore(row) : undefined;
  }

  async updateRestore(id: string, patch: RestorePatch, now: number): Promise<RestoreRecord | undefined> {
    const set = setClause(patch, restoreColumns, 3);
    const rows = await this.db.query<Row>(
      `UPDATE snapshot_restores SET updated_at = $2${set.sql ? `, ${set.sql}` : ''} WHERE id = $1 RETURNING *`,
      [id, now, ...set.params],
    );
    return rows[0] ? toRestore(rows[0]) : undefined;
  }

  async getSchedule(officeId: string): Promise<ScheduleRecord | undefined> {
    const [row] = await this.db.query<Row>('SELECT * FROM snapshot_schedules WHERE office_id = $1', [
      officeId,
    ]);
    return row ? toSchedule(row) : undefined;
  }

  /** Writes the schedule (insert or replace). */
  async putSchedule(s: ScheduleRecord): Promise<ScheduleRecord> {
    const [row] = await this.db.query<Row>(
      `INSERT INTO snapshot_schedules (office_id, enabled, hour_utc, retention_days, next_run_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (office_id) DO UPDATE SET enabled = excluded.enabled, hour_utc = excluded.hour_utc,
         retention_days = excluded.retention_days, next_run_at = excluded.next_run_at,
         updated_at = excluded.updated_at
       RETURNING *`,
      [s.officeId, s.enabled ? 1 : 0, s.hourUtc, s.retentionDays, s.nextRunAt, s.updatedAt],
    );
    return toSchedule(row as Row);
  }

  /** Records the default schedule of an office seen for the first time; keeps an existing one. */
  async ensureSchedule(s: ScheduleRecord): Promise<ScheduleRecord> {
    await this.db.query(
      `INSERT INTO snapshot_schedules (office_id, enabled, hour_utc, retention_days, next_run_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (office_id) DO NOTHING`,
      [s.officeId, s.enabled ? 1 : 0, s.hourUtc, s.retentionDays, s.nextRunAt, s.updatedAt],
    );
    return (await this.getSchedule(s.officeId)) as ScheduleRecord;
  }

  async schedules(): Promise<ScheduleRecord[]> {
    const rows = await this.db.query<Row>('SELECT * FROM snapshot_schedules ORDER BY office_id');
    return rows.map(toSchedule);
  }

  /**
   * Moves a due schedule to its next run, only if no one else did: of two replicas sweeping at once,
   * exactly one sees true and takes the snapshot.
   */
  async claimRun(officeId: string, dueAt: number, nextRunAt: number, now: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE snapshot_schedules SET next_run_at = $3, updated_at = $4
       WHERE office_id = $1 AND next_run_at = $2 RETURNING office_id`,
      [officeId, dueAt, nextRunAt, now],
    );
    return rows.length === 1;
  }
}
