// Migrations of the integration framework (ids 300–399): the office task queue, the recurring
// schedules of integrations' taskTemplates, and the OAuth Connect flow's one-time states.
import type { Migration } from './migrations.ts';

const ddl = (big: string, bool: string) => `
  CREATE TABLE office_tasks (
    id TEXT PRIMARY KEY,
    office_id TEXT NOT NULL,
    title TEXT NOT NULL,
    prompt TEXT NOT NULL,
    status TEXT NOT NULL,
    integration_id TEXT,
    template TEXT,
    scheduled_for ${big},
    dedupe_key TEXT UNIQUE,
    created_at ${big} NOT NULL,
    updated_at ${big} NOT NULL
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
    active ${bool} NOT NULL,
    activations INTEGER NOT NULL,
    next_run_at ${big},
    updated_at ${big} NOT NULL
  );
  CREATE INDEX task_schedules_due ON task_schedules (active, next_run_at);
  CREATE TABLE connect_states (
    state_hash TEXT PRIMARY KEY,
    office_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    instance_label TEXT,
    code_verifier TEXT NOT NULL,
    expires_at ${big} NOT NULL
  )`;

export const integrationMigrations: Migration[] = [
  {
    id: 300,
    name: 'office tasks, task schedules and OAuth connect states',
    sql: { sqlite: ddl('INTEGER', 'INTEGER'), postgres: ddl('BIGINT', 'BOOLEAN') },
  },
];
