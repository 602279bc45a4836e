// The scale-out settings reach what they configure: the job lease decides when a crashed runner's job
// is claimed again, and the pool size caps the PostgreSQL connections one replica opens.

import pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { type JobHandler, JobRunner } from '../../api/domain/jobs/job-runner.ts';
import { openDatabase } from '../../api/storage/open-database.ts';
import type { SqlDriver } from '../../api/storage/sql-driver.ts';
import { eventually } from '../support/eventually.ts';
import { postgresTarget, postgresUrl, storageTargets } from '../support/storage-targets.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const T0 = 1_700_000_000_000;

/** A handler that runs until its runner stops: that runner stands for a crashed replica. */
function hanging() {
  const started: number[] = [];
  const handler: JobHandler<Record<string, never>> = {
    description: 'hangs until released',
    input: z.strictObject({}),
    maxAttempts: 5,
    async run(_input, { job, signal }) {
      started.push(job.attempts);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    },
  };
  return { handler: handler as JobHandler<never>, started };
}

describe.each(storageTargets)('COLONY_JOB_LEASE_SECONDS on $name', (target) => {
  async function storageWithJob(): Promise<{ storage: Storage; jobId: string }> {
    const made = await target.create();
    const storage = await openStorage(made.target);
    cleanups.push(async () => {
      await storage.close();
      await made.dispose();
    });
    const { job } = await storage.jobs.create({ type: 'hang', input: {}, maxAttempts: 5 }, T0);
    return { storage, jobId: job.id };
  }

  function runner(
    storage: Storage,
    env: Record<string, string>,
    now: () => number,
    handler: JobHandler<never>,
  ) {
    const config = loadConfig(env);
    const r = new JobRunner({
      jobs: storage.jobs,
      handlers: { hang: handler },
      log: pino({ level: 'silent' }),
      pollMs: 10,
      leaseMs: config.jobLeaseMs,
      now,
    });
    cleanups.push(() => r.stop());
    r.start();
    return r;
  }

  it('a crashed runner’s job is claimed again once the configured lease has passed', async () => {
    const { storage, jobId } = await storageWithJob();
    const first = hanging();
    runner(storage, { COLONY_JOB_LEASE_SECONDS: '5' }, () => T0, first.handler);
    await eventually(async () => first.started.length === 1);

    // Within the lease the job stays its (crashed) runner's.
    expect(await storage.jobs.claim('probe', T0 + 4_000, 1)).toBeUndefined();

    const second = hanging();
    runner(storage, { COLONY_JOB_LEASE_SECONDS: '5' }, () => T0 + 6_000, second.handler);
    await eventually(async () => second.started.length === 1);
    expect(second.started).toEqual([2]);
    expect((await storage.jobs.get(jobId))?.status).toBe('running');
  });

  it('the default lease is still 60 s', async () => {
    const { storage } = await storageWithJob();
    const first = hanging();
    runner(storage, {}, () => T0, first.handler);
    await eventually(async () => first.started.length === 1);
    expect(await storage.jobs.claim('probe', T0 + 6_000, 1)).toBeUndefined();
    expect(await storage.jobs.claim('probe', T0 + 59_000, 1)).toBeUndefined();
    expect(await storage.jobs.claim('probe', T0 + 61_000, 1)).toMatchObject({ attempts: 2 });
  });
});

describe('COLONY_DATABASE_POOL_SIZE', () => {
  it('N concurrent slow queries hold exactly N PostgreSQL connections', async () => {
    const made = await postgresTarget.create();
    const config = loadConfig({ DATABASE_URL: postgresUrl(), COLONY_DATABASE_POOL_SIZE: '3' });
    if (config.database.kind !== 'postgres') throw new Error('expected a PostgreSQL configuration');
    const schema = made.target.kind === 'postgres' ? made.target.schema : undefined;
    const db = await openDatabase(
      { ...config.database, ...(schema ? { schema } : {}) },
      { migrations: [], repositories: (driver: SqlDriver) => ({ driver }) },
    );
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    cleanups.push(async () => {
      await admin.end();
      await db.close();
      await made.dispose();
    });

    const marker = `pool_probe_${schema}`;
    let settled = false;
    const queries = Promise.all(
      Array.from({ length: 7 }, () => db.driver.query(`SELECT pg_sleep(0.3) AS "${marker}"`)),
    ).finally(() => {
      settled = true;
    });
    let most = 0;
    while (!settled) {
      const [row] = (
        await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1`,
          [`%"${marker}"%`],
        )
      ).rows;
      most = Math.max(most, row?.n ?? 0);
      await new Promise((r) => setTimeout(r, 20));
    }
    await queries;
    expect(most).toBe(3);
    expect(loadConfig({ DATABASE_URL: postgresUrl() }).database).toMatchObject({ maxConnections: 10 });
  });

  it('refuses a pool size that is not a positive integer', () => {
    expect(() => loadConfig({ COLONY_DATABASE_POOL_SIZE: '0' })).toThrow(/COLONY_DATABASE_POOL_SIZE/);
    expect(() => loadConfig({ COLONY_JOB_LEASE_SECONDS: '1' })).toThrow(/COLONY_JOB_LEASE_SECONDS/);
  });
});
