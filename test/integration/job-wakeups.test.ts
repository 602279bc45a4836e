// An idle job runner sleeps (COLONY_JOB_POLL_MS, 10 s by default) and is woken instead: by a job
// enqueued in its process, on PostgreSQL by one another replica enqueued (LISTEN/NOTIFY), and when
// the earliest pending job falls due. Every runner here polls once in ten minutes, so only a
// wake-up can finish a job within the test.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { type JobHandler, JobRunner } from '../../api/domain/jobs/job-runner.ts';
import { eventually } from '../support/eventually.ts';
import { postgresTarget, storageTargets, withPostgresAdmin } from '../support/storage-targets.ts';

const TEN_MINUTES = 600_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const done: JobHandler<Record<string, never>> = {
  description: 'does nothing',
  input: z.strictObject({}),
  maxAttempts: 1,
  async run() {
    return { ok: true };
  },
};

function sleepyRunner(storage: Storage): JobRunner {
  const runner = new JobRunner({
    jobs: storage.jobs,
    handlers: { done: done as JobHandler<never> },
    log: pino({ level: 'silent' }),
    pollMs: TEN_MINUTES,
  });
  runner.start();
  cleanups.push(() => runner.stop());
  return runner;
}

async function opened(target: Awaited<ReturnType<typeof postgresTarget.create>>['target']) {
  const storage = await openStorage(target);
  cleanups.push(() => storage.close());
  return storage;
}

const completed = (storage: Storage, id: string) =>
  eventually(async () => (await storage.jobs.get(id))?.status === 'completed');

describe.each(storageTargets)('job wake-ups on $name', (t) => {
  it('wakes an idle runner for a job enqueued in its process, and for one due later', async () => {
    const made = await t.create();
    cleanups.push(made.dispose);
    const storage = await opened(made.target);
    sleepyRunner(storage);
    // The runner's first look found nothing; it now sleeps for ten minutes unless woken.
    await eventually(async () => (await storage.jobs.nextRunAt()) === undefined);

    const now = {
      job: (await storage.jobs.create({ type: 'done', input: {}, maxAttempts: 1 }, Date.now())).job,
    };
    expect(await completed(storage, now.job.id)).toBe(true);

    const later = await storage.jobs.create(
      { type: 'done', input: {}, maxAttempts: 1, runAt: Date.now() + 300 },
      Date.now(),
    );
    expect(await completed(storage, later.job.id)).toBe(true);
    expect((await storage.jobs.get(later.job.id))?.startedAt).toBeGreaterThanOrEqual(later.job.runAt);
  });
});

describe('job wake-ups across replicas (PostgreSQL)', () => {
  it("wakes one replica's idle runner for a job another replica enqueued", async () => {
    const made = await postgresTarget.create();
    cleanups.push(made.dispose);
    const enqueuing = await opened(made.target);
    const running = await opened(made.target);
    sleepyRunner(running);
    await eventually(async () => (await listeners()).length > 0);

    const { job } = await enqueuing.jobs.create({ type: 'done', input: {}, maxAttempts: 1 }, Date.now());
    expect(await completed(enqueuing, job.id)).toBe(true);
  });

  it('listens again after its connection drops, and looks for what it missed meanwhile', async () => {
    const made = await postgresTarget.create();
    cleanups.push(made.dispose);
    const enqueuing = await opened(made.target);
    const running = await opened(made.target);
    sleepyRunner(running);
    const before = await eventually(async () => {
      const pids = await listeners();
      return pids.length > 0 && pids;
    });

    // Every listening connection is cut (other tests' runners reconnect and look again too); the job is
    // enqueued before this one is back, so its NOTIFY reaches no one of this replica.
    await admin((c) => c.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]));
    const { job } = await enqueuing.jobs.create({ type: 'done', input: {}, maxAttempts: 1 }, Date.now());
    expect(await completed(enqueuing, job.id)).toBe(true);
    expect((await listeners()).some((pid) => !before.includes(pid))).toBe(true);
  });
});

const admin = withPostgresAdmin;

/** Backend pids of the connections listening for jobs. */
const listeners = () =>
  admin(async (c) => {
    const r = await c.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'colony-listen' AND query ILIKE 'LISTEN %'",
    );
    return r.rows.map((row) => row.pid);
  });
