// Backups' schema changes (ids 400–499): snapshot metadata, restores and per-office schedules.
import { eachDialect } from '../storage/column-types.ts';
import type { Migration } from '../storage/migration-runner.ts';

const tables = eachDialect(
  (t) => `
  CREATE TABLE snapshots (
    id TEXT PRIMARY KEY,
    office_id TEXT NOT NULL,
    status TEXT NOT NULL,
    trigger TEXT NOT NULL,
    description TEXT,
    parts ${t.json} NOT NULL,
    size_bytes ${t.bigint} NOT NULL DEFAULT 0,
    error TEXT,
    created_by TEXT NOT NULL,
    idempotency_key TEXT UNIQUE,
    request_hash TEXT,
    job_id TEXT,
    created_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL,
    started_at ${t.bigint},
    completed_at ${t.bigint},
    deleted_at ${t.bigint}
  );
  CREATE INDEX snapshots_office ON snapshots (office_id, created_at, id);
  CREATE INDEX snapshots_created ON snapshots (created_at, id);
  CREATE TABLE snapshot_restores (
    id TEXT PRIMARY KEY,
    snapshot_id TEXT NOT NULL REFERENCES snapshots (id),
    office_id TEXT NOT NULL,
    status TEXT NOT NULL,
    report ${t.json} NOT NULL,
    error TEXT,
    created_by TEXT NOT NULL,
    idempotency_key TEXT UNIQUE,
    request_hash TEXT,
    job_id TEXT,
    created_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL,
    completed_at ${t.bigint}
  );
  CREATE INDEX snapshot_restores_snapshot ON snapshot_restores (snapshot_id, created_at);
  CREATE TABLE snapshot_schedules (
    office_id TEXT PRIMARY KEY,
    enabled ${t.bigint} NOT NULL,
    hour_utc ${t.bigint} NOT NULL,
    retention_days ${t.bigint} NOT NULL,
    next_run_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL
  )`,
);

export const backupsMigrations: readonly Migration[] = [
  {
    id: 400,
    name: 'snapshots, snapshot restores and snapshot schedules',
    sql: tables,
  },
  {
    id: 401,
    name: 'at most one restore in progress per office',
    sql: eachDialect(
      () => `CREATE UNIQUE INDEX snapshot_restores_active ON snapshot_restores (office_id)
        WHERE status IN ('pending', 'running')`,
    ),
  },
];
