// JobRunner against real storage: retries with backoff, final failure, one runner per job.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { type JobHandler, JobRunner, retryDelayMs } from '../../api/domain/jobs/job-runner.ts';
import { eventually } from '../support/eventually.ts';

let storage: Storage;
let dir: string;
const runners: JobRunner[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'colony-runner-'));
  storage = await openStorage({ kind: 'sqlite', file: join(dir, 'db.sqlite') });
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop()));
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

// Each reading of this clock is a minute later, so every scheduled retry is already due.
function leapingClock() {
  let t = 1_700_000_000_000;
  return () => (t += 61_000);
}

function runner(handlers: Record<string, JobHandler<never>>, now = leapingClock()) {
  const r = new JobRunner({ jobs: storage.jobs, handlers, log: pino({ level: 'silent' }), pollMs: 10, now });
  runners.push(r);
  return r;
}

function flaky(failures: number, maxAttempts: number) {
  let calls = 0;
  const handler: JobHandler<Record<string, never>> = {
    description: 'fails a few times first',
    input: z.strictObject({}),
    maxAttempts,
    async run() {
      calls++;
      if (calls <= failures) throw new Error(`attempt ${calls} failed`);
      return { calls };
    },
  };
  return { handler: handler as JobHandler<never>, calls: () => calls };
}

describe('JobRunner', () => {
  it('retries a failing job with backoff until it completes', async () => {
    const f = flaky(2, 5);
    const { job } = await storage.jobs.create({ type: 'flaky', input: {}, maxAttempts: 5 }, 0);
    runner({ flaky: f.handler }).start();
    const done = await eventually(async () => {
      const j = await storage.jobs.get(job.id);
      return j?.status === 'completed' ? j : undefined;
    });
    expect(done).toMatchObject({ attempts: 3, result: { calls: 3 }, error: null });
  });

  it('gives up after maxAttempts and keeps the last error', async () => {
    const f = flaky(10, 2);
    const { job } = await storage.jobs.create({ type: 'flaky', input: {}, maxAttempts: 2 }, 0);
    runner({ flaky: f.handler }).start();
    const done = await eventually(async () => {
      const j = await storage.jobs.get(job.id);
      return j?.status === 'failed' ? j : undefined;
    });
    expect(done).toMatchObject({ attempts: 2, error: 'attempt 2 failed' });
    expect(f.calls()).toBe(2);
  });

  it('waits as long as the handler asks before the next attempt', async () => {
    const f = flaky(1, 3);
    const handler = { ...f.handler, retryDelayMs: () => 3_600_000 } as JobHandler<never>;
    const { job } = await storage.jobs.create({ type: 'slow-retry', input: {}, maxAttempts: 3 }, 0);
    const at = Date.now();
    runner({ 'slow-retry': handler }, () => at).start();
    const waiting = await eventually(async () => {
      const j = await storage.jobs.get(job.id);
      return j?.status === 'retrying' ? j : undefined;
    });
    expect(waiting.runAt).toBe(at + 3_600_000);
  });

  it('fails a job whose type has no handler without retrying it', async () => {
    const { job } = await storage.jobs.create({ type: 'gone', input: {}, maxAttempts: 5 }, 0);
    runner({}).start();
    const done = await eventually(async () => {
      const j = await storage.jobs.get(job.id);
      return j?.status === 'failed' ? j : undefined;
    });
    expect(done.attempts).toBe(1);
    expect(done.error).toContain('no handler');
  });

  it('runs each job once even with two runners polling the same database', async () => {
    let runs = 0;
    const counting: JobHandler<Record<string, never>> = {
      description: 'counts',
      input: z.strictObject({}),
      maxAttempts: 1,
      async run() {
        runs++;
        await new Promise((r) => setTimeout(r, 5));
        return null;
      },
    };
    const ids: string[] = [];
    for (let i = 0; i < 10; i++)
      ids.push((await storage.jobs.create({ type: 'count', input: {}, maxAttempts: 1 }, 0)).job.id);
    const handlers = { count: counting as JobHandler<never> };
    const both = [runner(handlers, () => Date.now()), runner(handlers, () => Date.now())];
    for (const r of both) r.start();
    await eventually(async () => {
      const jobs = await Promise.all(ids.map((id) => storage.jobs.get(id)));
      return jobs.every((j) => j?.status === 'completed');
    });
    // Stopping waits for a job in hand, so a second run of any job would be counted by now.
    await Promise.all(both.map((r) => r.stop()));
    expect(runs).toBe(10);
  });
});

describe('retryDelayMs', () => {
  it.each([
    [1, 500, 1000],
    [2, 1000, 2000],
    [4, 4000, 8000],
    [20, 30_000, 60_000],
  ])('waits between half and all of the ceiling for attempt %i', (attempt, min, max) => {
    expect(retryDelayMs(attempt, () => 0)).toBe(min);
    expect(retryDelayMs(attempt, () => 1)).toBe(max);
  });

  it('doubles up to a cap a job type may raise (order webhooks: an hour)', () => {
    expect(retryDelayMs(8, () => 1, 3_600_000)).toBe(128_000);
    expect(retryDelayMs(20, () => 1, 3_600_000)).toBe(3_600_000);
    expect(retryDelayMs(20, () => 0, 3_600_000)).toBe(1_800_000);
  });
});
