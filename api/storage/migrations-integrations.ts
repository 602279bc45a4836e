// Migrations of the integration framework (ids 300–399): the office task queue, the recurring
// schedules of integrations' taskTemplates, and the OAuth Connect flow's one-time states.
import { eachDialect } from './column-types.ts';
import type { Migration } from './migration-runner.ts';

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

// One row per OAuth-connected integration instance: when its access token expires, whether the
// last refresh worked, and a lease so one replica refreshes it at a time. Tokens stay in the Secret.
const connections = eachDialect(
  (t) => `
  CREATE TABLE oauth_connections (
    office_id TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    instance_label TEXT NOT NULL,
    namespace TEXT NOT NULL,
    secret_name TEXT NOT NULL,
    status TEXT NOT NULL,
    message TEXT,
    expires_at ${t.bigint},
    lease_until ${t.bigint} NOT NULL,
    connected_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL,
    PRIMARY KEY (office_id, integration_id, instance_label)
  );
  CREATE INDEX oauth_connections_due ON oauth_connections (status, expires_at)`,
);

export const integrationMigrations: Migration[] = [
  {
    id: 300,
    name: 'office tasks, task schedules and OAuth connect states',
    sql: ddl,
  },
  {
    id: 301,
    name: 'OAuth connections: token expiry, refresh status and lease',
    sql: connections,
  },
];
