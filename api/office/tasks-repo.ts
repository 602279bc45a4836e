// The office task queue and the schedules that feed it. Every creation that could race between
// replicas is decided by one statement: a unique dedupe key, or a compare-and-set on a schedule.
import { randomBytes } from 'node:crypto';
import type { SqlDriver } from '../storage/sql-driver.ts';

export const taskStatuses = ['open', 'in_progress', 'done', 'canceled'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

export interface TaskRecord {
  id: string;
  officeId: string;
  title: string;
  prompt: string;
  status: TaskStatus;
  integrationId: string | null;
  template: string | null;
  scheduledFor: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewTask {
  officeId: string;
  title: string;
  prompt: string;
  integrationId?: string;
  template?: string;
  scheduledFor?: number;
  /** Creating twice with one key creates one task. */
  dedupeKey?: string;
}

/** A template as it should be scheduled for an office: `cron` null means once per enablement. */
export interface DesiredSchedule {
  officeId: string;
  integrationId: string;
  template: string;
  title: string;
  prompt: string;
  cron: string | null;
  timezone: string;
}

export interface ScheduleRecord extends DesiredSchedule {
  id: string;
  active: boolean;
  activations: number;
  nextRunAt: number | null;
}

interface TaskRow {
  id: string;
  office_id: string;
  title: string;
  prompt: string;
  status: TaskStatus;
  integration_id: string | null;
  template: string | null;
  scheduled_for: number | null;
  created_at: number;
  updated_at: number;
}

interface ScheduleRow {
  id: string;
  office_id: string;
  integration_id: string;
  template: string;
  title: string;
  prompt: string;
  cron: string | null;
  timezone: string;
  active: boolean | number;
  activations: number;
  next_run_at: number | null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const toTask = (r: TaskRow): TaskRecord => ({
  id: r.id,
  officeId: r.office_id,
  title: r.title,
  prompt: r.prompt,
  status: r.status,
  integrationId: r.integration_id,
  template: r.template,
  scheduledFor: num(r.scheduled_for),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});
const toSchedule = (r: ScheduleRow): ScheduleRecord => ({
  id: r.id,
  officeId: r.office_id,
  integrationId: r.integration_id,
  template: r.template,
  title: r.title,
  prompt: r.prompt,
  cron: r.cron,
  timezone: r.timezone,
  active: r.active === true || r.active === 1,
  activations: Number(r.activations),
  nextRunAt: num(r.next_run_at),
});

export const scheduleId = (d: Pick<DesiredSchedule, 'officeId' | 'integrationId' | 'template'>) =>
  `${d.officeId}/${d.integrationId}/${d.template}`;

export class TasksRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Creates the task, or answers undefined when its dedupe key was already used. */
  async create(t: NewTask, now: number): Promise<TaskRecord | undefined> {
    const rows = await this.db.query<TaskRow>(
      `INSERT INTO office_tasks (id, office_id, title, prompt, status, integration_id, template, scheduled_for, dedupe_key, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'open', $5, $6, $7, $8, $9, $9)
       ON CONFLICT (dedupe_key) DO NOTHING RETURNING *`,
      [
        `task_${randomBytes(10).toString('hex')}`,
        t.officeId,
        t.title,
        t.prompt,
        t.integrationId ?? null,
        t.template ?? null,
        t.scheduledFor ?? null,
        t.dedupeKey ?? null,
        now,
      ],
    );
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  async get(officeId: string, id: string): Promise<TaskRecord | undefined> {
    const rows = await this.db.query<TaskRow>('SELECT * FROM office_tasks WHERE office_id = $1 AND id = $2', [
      officeId,
      id,
    ]);
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  /** Newest first; `after` is the (createdAt, id) of the last task of the previous page. */
  async list(
    officeId: string,
    opts: { status?: TaskStatus; limit: number; after?: { createdAt: number; id: string } },
  ): Promise<TaskRecord[]> {
    const params: (string | number)[] = [officeId];
    let where = 'office_id = $1';
    if (opts.status) {
      params.push(opts.status);
      where += ` AND status = $${params.length}`;
    }
    if (opts.after) {
      params.push(opts.after.createdAt, opts.after.id);
      where += ` AND (created_at < $${params.length - 1} OR (created_at = $${params.length - 1} AND id < $${params.length}))`;
    }
    params.push(opts.limit);
    const rows = await this.db.query<TaskRow>(
      `SELECT * FROM office_tasks WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toTask);
  }

  async setStatus(
    officeId: string,
    id: string,
    status: TaskStatus,
    now: number,
  ): Promise<TaskRecord | undefined> {
    const rows = await this.db.query<TaskRow>(
      'UPDATE office_tasks SET status = $3, updated_at = $4 WHERE office_id = $1 AND id = $2 RETURNING *',
      [officeId, id, status, now],
    );
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  async schedules(officeId: string): Promise<ScheduleRecord[]> {
    return (
      await this.db.query<ScheduleRow>('SELECT * FROM task_schedules WHERE office_id = $1 ORDER BY id', [
        officeId,
      ])
    ).map(toSchedule);
  }

  /**
   * Makes a schedule active. Answers the schedule when this call is the one that activated it (a
   * new row, or inactive before), so exactly one replica files the once-per-enable task.
   */
  async activate(
    d: DesiredSchedule,
    nextRunAt: number | null,
    now: number,
  ): Promise<ScheduleRecord | undefined> {
    const id = scheduleId(d);
    const inserted = await this.db.query<ScheduleRow>(
      `INSERT INTO task_schedules (id, office_id, integration_id, template, title, prompt, cron, timezone, active, activations, next_run_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING *`,
      [
        id,
        d.officeId,
        d.integrationId,
        d.template,
        d.title,
        d.prompt,
        d.cron,
        d.timezone,
        true,
        nextRunAt,
        now,
      ],
    );
    if (inserted[0]) return toSchedule(inserted[0]);
    const flipped = await this.db.query<ScheduleRow>(
      `UPDATE task_schedules SET active = $2, activations = activations + 1, next_run_at = $3, title = $4, prompt = $5, cron = $6, timezone = $7, updated_at = $8
       WHERE id = $1 AND active = $9 RETURNING *`,
      [id, true, nextRunAt, d.title, d.prompt, d.cron, d.timezone, now, false],
    );
    if (flipped[0]) return toSchedule(flipped[0]);
    // Already active: keep the definition current (a new registry version may change it).
    await this.db.query(
      'UPDATE task_schedules SET title = $2, prompt = $3, cron = $4, timezone = $5 WHERE id = $1',
      [id, d.title, d.prompt, d.cron, d.timezone],
    );
    return undefined;
  }

  async activeOffices(): Promise<string[]> {
    const rows = await this.db.query<{ office_id: string }>(
      'SELECT DISTINCT office_id FROM task_schedules WHERE active = $1',
      [true],
    );
    return rows.map((r) => r.office_id);
  }

  async deactivate(id: string, now: number): Promise<void> {
    await this.db.query(
      'UPDATE task_schedules SET active = $2, updated_at = $3 WHERE id = $1 AND active = $4',
      [id, false, now, true],
    );
  }

  async due(now: number, limit = 100): Promise<ScheduleRecord[]> {
    const rows = await this.db.query<ScheduleRow>(
      'SELECT * FROM task_schedules WHERE active = $1 AND next_run_at IS NOT NULL AND next_run_at <= $2 ORDER BY next_run_at LIMIT $3',
      [true, now, limit],
    );
    return rows.map(toSchedule);
  }

  /** Moves a due schedule to its next run; true only for the one caller that moved it. */
  async claim(id: string, expectedRunAt: number, nextRunAt: number, now: number): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      'UPDATE task_schedules SET next_run_at = $3, updated_at = $4 WHERE id = $1 AND next_run_at = $2 AND active = $5 RETURNING id',
      [id, expectedRunAt, nextRunAt, now, true],
    );
    return rows.length === 1;
  }
}
