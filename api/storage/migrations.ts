// Ordered schema migrations, one entry per change; each body is written once (column-types.ts) unless the dialects really differ.

import { eachDialect } from './column-types.ts';
import { backupsMigrations } from './migrations-backups.ts';
import { commerceMigrations } from './migrations-commerce.ts';
import { identityMigrations } from './migrations-identity.ts';
import { integrationMigrations } from './migrations-integrations.ts';
import type { Dialect, SqlDriver } from './sql-driver.ts';

export interface Migration {
  id: number;
  name: string;
  sql: Record<Dialect, string>;
}

export const migrations: readonly Migration[] = [
  {
    id: 1,
    name: 'skills, jobs and rate-limit counters',
    sql: eachDialect(
      (t) => `
        CREATE TABLE skills (
          name TEXT PRIMARY KEY,
          description TEXT NOT NULL,
          content TEXT NOT NULL,
          digest TEXT NOT NULL,
          metadata ${t.json} NOT NULL,
          updated_at ${t.bigint} NOT NULL
        );
        CREATE TABLE jobs (
          id TEXT PRIMARY KEY,
          type TEXT NOT NULL,
          status TEXT NOT NULL,
          input ${t.json} NOT NULL,
          result ${t.json},
          error TEXT,
          attempts INTEGER NOT NULL DEFAULT 0,
          max_attempts INTEGER NOT NULL,
          run_at ${t.bigint} NOT NULL,
          created_at ${t.bigint} NOT NULL,
          updated_at ${t.bigint} NOT NULL,
          started_at ${t.bigint},
          finished_at ${t.bigint},
          locked_by TEXT,
          locked_until ${t.bigint},
          idempotency_key TEXT UNIQUE,
          request_hash TEXT
        );
        CREATE INDEX jobs_runnable ON jobs (status, run_at);
        CREATE TABLE rate_limit_counters (
          key TEXT PRIMARY KEY,
          window_start ${t.bigint} NOT NULL,
          count INTEGER NOT NULL,
          expires_at ${t.bigint} NOT NULL
        );`,
    ),
  },
  ...integrationMigrations,
  ...commerceMigrations,
  ...identityMigrations,
  ...backupsMigrations,
];

/** Applies pending migrations; on PostgreSQL an advisory lock keeps replicas from racing. */
export async function migrate(driver: SqlDriver, now: () => number = Date.now): Promise<number[]> {
  const ledger =
    'CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)';
  return driver.transaction(async (tx) => {
    // The lock comes first: concurrent CREATE TABLE IF NOT EXISTS can still collide on PostgreSQL.
    if (tx.dialect === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(7263511)');
    await tx.query(ledger);
    const rows = await tx.query<{ id: number }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => Number(r.id)));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      for (const statement of splitStatements(m.sql[tx.dialect])) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
        m.id,
        m.name,
        now(),
      ]);
      applied.push(m.id);
    }
    return applied;
  });
}

// Migration bodies hold plain DDL without semicolons inside literals, so a split on ';' is exact.
function splitStatements(script: string): string[] {
  return script
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
