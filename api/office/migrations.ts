// The integration framework's first migration (ids 300–399): the office task queue, the recurring
// schedules of integrations' taskTemplates, and the OAuth Connect flow's one-time states (which
// api/connect reads; one entry, since its id is recorded).
import { eachDialect } from '../storage/column-types.ts';
import type { Migration } from '../storage/migration-runner.ts';

const ddl = eachDialect(
  (t) => `
  CREATE TABLE office_tasks (
    id TEXT PRIMARY KEY,
    office_id TEXT NOT NULL,
    title TEXT NOT NULL,
    prompt TEXT NOT NULL,
    status TEXT NOT NULL,
    integration_id TEXT,
    template TEXT,
    scheduled_for ${t.bigint},
    dedupe_key TEXT UNIQUE,
    created_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL
  );
  CREATE INDEX office_tasks_by_office ON office_tasks (office_id, created_at, id);
  CREATE TABLE task_schedules (
    id TEXT PRIMARY KEY,
    office_id TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    template TEXT NOT NULL,
    title TEXT NOT NULL,
    prompt TEXT NOT NULL,
    cron TEXT,
    timezone TEXT NOT NULL,
    active ${t.boolean} NOT NULL,
    activations INTEGER NOT NULL,
    next_run_at ${t.bigint},
    updated_at ${t.bigint} NOT NULL
  );
  CREATE INDEX task_schedules_due ON task_schedules (active, next_run_at);
  CREATE TABLE connect_states (
    state_hash TEXT PRIMARY KEY,
    office_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    instance_label TEXT,
    code_verifier TEXT NOT NULL,
    expires_at ${t.bigint} NOT NULL
  )`,
);

export const officeMigrations: readonly Migration[] = [
  {
    id: 300,
    name: 'office tasks, task schedules and OAuth connect states',
    sql: ddl,
  },
];
