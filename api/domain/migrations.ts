// The first migration (id 1), older than the per-domain id ranges: the skills and jobs tables of
// api/domain and the rate limiter's counters (api/shared/rate-limit), one entry since its id is recorded.
import { eachDialect } from '../storage/column-types.ts';
import type { Migration } from '../storage/migration-runner.ts';

export const domainMigrations: readonly Migration[] = [
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
];
