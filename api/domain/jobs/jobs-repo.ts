// Durable job records: creation with idempotency keys, leasing to one worker, and outcomes.
import { randomUUID } from 'node:crypto';
import { readJson, writeJson } from '../../storage/json-column.ts';
import type { SqlDriver, SqlExecutor } from '../../storage/sql-driver.ts';

/** queued → running → completed; a failed attempt goes to retrying (then running again) or failed. */
export const jobStatuses = ['queued', 'running', 'retrying', 'completed', 'failed'] as const;
export type JobStatus = (typeof jobStatuses)[number];

export interface JobRecord {
  id: string;
  type: string;
  status: JobStatus;
  input: unknown;
  result: unknown;
  error: string | null;
  attempts: number;
  maxAttempts: number;
  runAt: number;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  idempotencyKey: string | null;
  requestHash: string | null;
}

export interface NewJob {
  type: string;
  input: unknown;
  maxAttempts: number;
  idempotencyKey?: string;
  requestHash?: string;
  /** Not before this time (epoch ms); now when absent. */
  runAt?: number;
}

interface JobRow {
  id: string;
  type: string;
  status: JobStatus;
  input: unknown;
  result: unknown;
  error: string | null;
  attempts: number;
  max_attempts: number;
  run_at: number;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  idempotency_key: string | null;
  request_hash: string | null;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const toRecord = (r: JobRow): JobRecord => ({
  id: r.id,
  type: r.type,
  status: r.status,
  input: readJson(r.input),
  result: r.result === null || r.result === undefined ? null : readJson(r.result),
  error: r.error,
  attempts: Number(r.attempts),
  maxAttempts: Number(r.max_attempts),
  runAt: Number(r.run_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  startedAt: nullableNumber(r.started_at),
  finishedAt: nullableNumber(r.finished_at),
  idempotencyKey: r.idempotency_key,
  requestHash: r.request_hash,
});

/** Where PostgreSQL announces new and retried jobs, so the idle runners of every replica wake. */
export const JOBS_CHANNEL = 'colony_jobs';

/** Told the run time of each job enqueued or rescheduled; `missed` when announcements may have been lost. */
export interface JobSubscriber {
  runnable(runAt: number): void;
  missed(): void;
}

/**
 * Inserts a job on any executor, so a job can be written in the transaction of the change that
 * causes it (an outbox); undefined when its idempotency key is taken. The writer announces it after
 * the commit (JobsRepo.announce).
 */
export async function insertJob(db: SqlExecutor, job: NewJob, now: number): Promise<JobRecord | undefined> {
  const id = `job_${randomUUID().replaceAll('-', '')}`;
  const [row] = await db.query<JobRow>(
    `INSERT INTO jobs (id, type, status, input, attempts, max_attempts, run_at, created_at, updated_at,
       idempotency_key, request_hash)
     VALUES ($1, $2, 'queued', $3, 0, $4, $8, $5, $5, $6, $7)
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING *`,
    [
      id,
      job.type,
      writeJson(job.input),
      job.maxAttempts,
      now,
      job.idempotencyKey ?? null,
      job.requestHash ?? null,
      job.runAt ?? now,
    ],
  );
  return row ? toRecord(row) : undefined;
}

export class JobsRepo {
  private readonly db: SqlDriver;

  private readonly subscribers = new Set<JobSubscriber>();

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /**
   * Inserts the job unless its idempotency key is taken; then returns the job that holds the key.
   * One statement decides the race, so concurrent requests with one key create one job.
   */
  async create(job: NewJob, now: number): Promise<{ job: JobRecord; created: boolean }> {
    const inserted = await insertJob(this.db, job, now);
    if (inserted) {
      await this.announce(job.runAt ?? now);
      return { job: inserted, created: true };
    }
    const [existing] = await this.db.query<JobRow>('SELECT * FROM jobs WHERE idempotency_key = $1', [
      job.idempotencyKey ?? null,
    ]);
    if (!existing) throw new Error('idempotency key conflict but no job holds the key');
    return { job: toRecord(existing), created: false };
  }

  /** Every job of one type, oldest first (internal jobs such as order webhooks, for operators and tests). */
  async ofType(type: string): Promise<JobRecord[]> {
    const rows = await this.db.query<JobRow>('SELECT * FROM jobs WHERE type = $1 ORDER BY created_at, id', [
      type,
    ]);
    return rows.map(toRecord);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const [row] = await this.db.query<JobRow>('SELECT * FROM jobs WHERE id = $1', [id]);
    return row ? toRecord(row) : undefined;
  }

  /**
   * Leases the oldest runnable job to `workerId`. A running job whose lease expired (its worker
   * died) is runnable again, which is how jobs survive a restart.
   */
  async claim(workerId: string, now: number, leaseMs: number): Promise<JobRecord | undefined> {
    const skipLocked = this.db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const [row] = await this.db.query<JobRow>(
      `UPDATE jobs SET status = 'running', locked_by = $1, locked_until = $2, attempts = attempts + 1,
         started_at = COALESCE(started_at, $3), updated_at = $3
       WHERE id = (
         SELECT id FROM jobs
         WHERE (status IN ('queued', 'retrying') AND run_at <= $3)
            OR (status = 'running' AND locked_until < $3)
         ORDER BY run_at, created_at
         LIMIT 1 ${skipLocked}
       )
       RETURNING *`,
      [workerId, now + leaseMs, now],
    );
    return row ? toRecord(row) : undefined;
  }

  /** Extends a lease while a long job runs; false when the lease was lost to another worker. */
  async renewLease(id: string, workerId: string, until: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE jobs SET locked_until = $3 WHERE id = $1 AND locked_by = $2 AND status = 'running' RETURNING id`,
      [id, workerId, until],
    );
    return rows.length === 1;
  }

  async complete(id: string, workerId: string, result: unknown, now: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE jobs SET status = 'completed', result = $3, error = NULL, finished_at = $4, updated_at = $4,
         locked_by = NULL, locked_until = NULL
       WHERE id = $1 AND locked_by = $2 AND status = 'running' RETURNING id`,
      [id, workerId, writeJson(result), now],
    );
    return rows.length === 1;
  }

  /** Records a failed attempt: `retryAt` schedules another, null makes the failure final. */
  async fail(
    id: string,
    workerId: string,
    error: string,
    retryAt: number | null,
    now: number,
  ): Promise<boolean> {
    const rows =
      retryAt === null
        ? await this.db.query(
            `UPDATE jobs SET status = 'failed', error = $3, finished_at = $4, updated_at = $4,
               locked_by = NULL, locked_until = NULL
             WHERE id = $1 AND locked_by = $2 AND status = 'running' RETURNING id`,
            [id, workerId, error, now],
          )
        : await this.db.query(
            `UPDATE jobs SET status = 'retrying', error = $3, run_at = $4, updated_at = $5,
               locked_by = NULL, locked_until = NULL
             WHERE id = $1 AND locked_by = $2 AND status = 'running' RETURNING id`,
            [id, workerId, error, retryAt, now],
          );
    if (retryAt !== null && rows.length === 1) await this.announce(retryAt);
    return rows.length === 1;
  }

  /**
   * When the earliest job becomes runnable: a queued or retrying job's run time, or a running
   * job's lease end (its runner may have died). Undefined when nothing is pending.
   */
  async nextRunAt(): Promise<number | undefined> {
    const [row] = await this.db.query<{ next: number | null }>(
      `SELECT MIN(CASE WHEN status = 'running' THEN locked_until ELSE run_at END) AS next
       FROM jobs WHERE status IN ('queued', 'retrying', 'running')`,
    );
    return row?.next ?? undefined;
  }

  /**
   * Runners of this process hear of jobs at once; on PostgreSQL those of every replica do, over
   * LISTEN. Returns the unsubscribe.
   */
  subscribe(subscriber: JobSubscriber): () => Promise<void> {
    this.subscribers.add(subscriber);
    const listening = this.db.listen?.(
      JOBS_CHANNEL,
      (payload) => {
        const runAt = Number(payload);
        if (Number.isFinite(runAt)) subscriber.runnable(runAt);
      },
      () => subscriber.missed(),
    );
    return async () => {
      this.subscribers.delete(subscriber);
      await listening?.close();
    };
  }

  /** Tells the runners of a job written by someone else's transaction, once it is committed. */
  async announce(runAt: number): Promise<void> {
    for (const s of this.subscribers) s.runnable(runAt);
    // Best effort: the job is stored, and a runner that missed the news finds it on its idle poll.
    if (this.db.dialect === 'postgres')
      await this.db.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, String(runAt)]).catch(() => {});
  }
}
