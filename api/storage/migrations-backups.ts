// Backups' schema changes (ids 400–499): snapshot metadata, restores and per-office schedules.
import type { Migration } from './migrations.ts';

// One body for both dialects but the integer width: epoch milliseconds need BIGINT on PostgreSQL.
const tables = (int: string, json: string) => `
  CREATE TABLE snapshots (
    id TEXT PRIMARY KEY,
    office_id TEXT NOT NULL,
    status TEXT NOT NULL,
    trigger TEXT NOT NULL,
    description TEXT,
    parts ${json} NOT NULL,
    size_bytes ${int} NOT NULL DEFAULT 0,
    error TEXT,
    created_by TEXT NOT NULL,
    idempotency_key TEXT UNIQUE,
    request_hash TEXT,
    job_id TEXT,
    created_at ${int} NOT NULL,
    updated_at ${int} NOT NULL,
    started_at ${int},
    completed_at ${int},
    deleted_at ${int}
  );
  CREATE INDEX snapshots_office ON snapshots (office_id, created_at, id);
  CREATE INDEX snapshots_created ON snapshots (created_at, id);
  CREATE TABLE snapshot_restores (
    id TEXT PRIMARY KEY,
    snapshot_id TEXT NOT NULL REFERENCES snapshots (id),
    office_id TEXT NOT NULL,
    status TEXT NOT NULL,
    report ${json} NOT NULL,
    error TEXT,
    created_by TEXT NOT NULL,
    idempotency_key TEXT UNIQUE,
    request_hash TEXT,
    job_id TEXT,
    created_at ${int} NOT NULL,
    updated_at ${int} NOT NULL,
    completed_at ${int}
  );
  CREATE INDEX snapshot_restores_snapshot ON snapshot_restores (snapshot_id, created_at);
  CREATE TABLE snapshot_schedules (
    office_id TEXT PRIMARY KEY,
    enabled ${int} NOT NULL,
    hour_utc ${int} NOT NULL,
    retention_days ${int} NOT NULL,
    next_run_at ${int} NOT NULL,
    updated_at ${int} NOT NULL
  )`;

export const backupsMigrations: readonly Migration[] = [
  {
    id: 400,
    name: 'snapshots, snapshot restores and snapshot schedules',
    sql: { sqlite: tables('INTEGER', 'TEXT'), postgres: tables('BIGINT', 'JSONB') },
  },
  {
    id: 401,
    name: 'at most one restore in progress per office',
    sql: {
      sqlite: `CREATE UNIQUE INDEX snapshot_restores_active ON snapshot_restores (office_id)
        WHERE status IN ('pending', 'running')`,
      postgres: `CREATE UNIQUE INDEX snapshot_restores_active ON snapshot_restores (office_id)
        WHERE status IN ('pending', 'running')`,
    },
  },
];
