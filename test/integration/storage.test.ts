// The storage contract, run unchanged against embedded SQLite and a real PostgreSQL.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import type { StorageTarget } from '../../api/storage/open-database.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('storage on $name', (t) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let target: StorageTarget;

  beforeEach(async () => {
    const made = await t.create();
    dispose = made.dispose;
    target = made.target;
    storage = await openStorage(made.target);
  });

  afterEach(async () => {
    await storage.close();
    await dispose();
  });

  const skill = (name: string, digest = `sha256:${name}`) => ({
    name,
    description: `does ${name}`,
    content: `---\nname: ${name}\n---\n`,
    digest,
    metadata: { license: 'Apache-2.0' },
  });

  describe('skills', () => {
    it('replaces the set and reports what changed', async () => {
      expect(await storage.skills.replaceAll([skill('b'), skill('a')], 1)).toMatchObject({
        added: 2,
        total: 2,
      });
      const second = await storage.skills.replaceAll([skill('a'), skill('b', 'sha256:new'), skill('c')], 2);
      expect(second).toEqual({ added: 1, updated: 1, removed: 0, unchanged: 1, total: 3 });
      const third = await storage.skills.replaceAll([skill('c')], 3);
      expect(third).toMatchObject({ removed: 2, unchanged: 1, total: 1 });
      expect((await storage.skills.get('c'))?.metadata).toEqual({ license: 'Apache-2.0' });
      expect(await storage.skills.get('a')).toBeUndefined();
    });

    it('pages in byte order by keyset and by offset', async () => {
      const names = ['zeta', 'Alpha', 'beta', 'a-b', 'ab'];
      await storage.skills.replaceAll(
        names.map((n) => skill(n)),
        1,
      );
      const sorted = [...names].sort();
      const first = await storage.skills.list({ limit: 2 });
      expect(first.map((s) => s.name)).toEqual(sorted.slice(0, 2));
      expect(first[0]).not.toHaveProperty('content');
      const next = await storage.skills.list({ limit: 2, afterName: first[1]?.name });
      expect(next.map((s) => s.name)).toEqual(sorted.slice(2, 4));
      const byOffset = await storage.skills.list({ limit: 10, offset: 3 });
      expect(byOffset.map((s) => s.name)).toEqual(sorted.slice(3));
      expect((await storage.skills.all()).map((s) => s.content)).toEqual(sorted.map((n) => skill(n).content));
    });

    it('fingerprints the set so that any change shows', async () => {
      expect(await storage.skills.stamp()).toEqual({ count: 0, newest: 0 });
      await storage.skills.replaceAll([skill('a'), skill('b')], 10);
      const before = await storage.skills.stamp();
      expect(before).toEqual({ count: 2, newest: 10 });
      await storage.skills.replaceAll([skill('a'), skill('b', 'sha256:changed')], 20);
      expect((await storage.skills.stamp()).newest).toBe(20);
      await storage.skills.replaceAll([skill('a')], 30);
      expect((await storage.skills.stamp()).count).toBe(1);
    });
  });

  describe('jobs', () => {
    it('creates one job per idempotency key even when requests race', async () => {
      const results = await Promise.all(
        Array.from({ length: 12 }, () =>
          storage.jobs.create(
            { type: 'skills.reindex', input: {}, maxAttempts: 3, idempotencyKey: 'k1', requestHash: 'h' },
            10,
          ),
        ),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
    });

    it('jobs without a key never collide', async () => {
      const a = await storage.jobs.create({ type: 't', input: { n: 1 }, maxAttempts: 1 }, 1);
      const b = await storage.jobs.create({ type: 't', input: { n: 2 }, maxAttempts: 1 }, 1);
      expect(a.created && b.created).toBe(true);
      expect(a.job.id).not.toBe(b.job.id);
      expect((await storage.jobs.get(b.job.id))?.input).toEqual({ n: 2 });
    });

    it('leases a job to one worker, then records retries and completion', async () => {
      const { job } = await storage.jobs.create({ type: 't', input: {}, maxAttempts: 3 }, 100);
      const claimed = await storage.jobs.claim('w1', 100, 1000);
      expect(claimed).toMatchObject({ id: job.id, status: 'running', attempts: 1, startedAt: 100 });
      expect(await storage.jobs.claim('w2', 150, 1000)).toBeUndefined();
      expect(await storage.jobs.fail(job.id, 'w2', 'not mine', 500, 150)).toBe(false);
      expect(await storage.jobs.fail(job.id, 'w1', 'boom', 500, 160)).toBe(true);
      expect(await storage.jobs.get(job.id)).toMatchObject({ status: 'retrying', error: 'boom', runAt: 500 });
      expect(await storage.jobs.claim('w2', 499, 1000)).toBeUndefined();
      const again = await storage.jobs.claim('w2', 500, 1000);
      expect(again).toMatchObject({ attempts: 2, startedAt: 100 });
      expect(await storage.jobs.complete(job.id, 'w2', { ok: true }, 600)).toBe(true);
      expect(await storage.jobs.get(job.id)).toMatchObject({
        status: 'completed',
        result: { ok: true },
        error: null,
        finishedAt: 600,
      });
    });

    it('hands a job whose worker died to another worker once the lease expires', async () => {
      const { job } = await storage.jobs.create({ type: 't', input: {}, maxAttempts: 3 }, 0);
      await storage.jobs.claim('dead', 0, 1000);
      expect(await storage.jobs.claim('alive', 999, 1000)).toBeUndefined();
      expect(await storage.jobs.claim('alive', 1001, 1000)).toMatchObject({ id: job.id, attempts: 2 });
      expect(await storage.jobs.complete(job.id, 'dead', null, 1002)).toBe(false);
    });

    it('gives each of many racing workers a different job', async () => {
      for (let i = 0; i < 8; i++) await storage.jobs.create({ type: 't', input: { i }, maxAttempts: 1 }, i);
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => storage.jobs.claim(`w${i}`, 100, 1000)),
      );
      const ids = claims.map((c) => c?.id);
      expect(ids.every(Boolean)).toBe(true);
      expect(new Set(ids).size).toBe(8);
    });

    it('makes a failure final when no retry is scheduled', async () => {
      const { job } = await storage.jobs.create({ type: 't', input: {}, maxAttempts: 1 }, 0);
      await storage.jobs.claim('w', 0, 100);
      await storage.jobs.fail(job.id, 'w', 'gave up', null, 5);
      expect(await storage.jobs.get(job.id)).toMatchObject({ status: 'failed', finishedAt: 5 });
      expect(await storage.jobs.claim('w', 10_000, 100)).toBeUndefined();
    });
  });

  describe('rate-limit counters', () => {
    it('counts within a window and restarts in the next', async () => {
      expect(await storage.rateLimitCounters.hit('ip:1', 0, 1, 60)).toBe(1);
      expect(await storage.rateLimitCounters.hit('ip:1', 0, 2, 60)).toBe(3);
      expect(await storage.rateLimitCounters.hit('ip:1', 60, 1, 120)).toBe(1);
      const concurrent = await Promise.all(
        Array.from({ length: 20 }, () => storage.rateLimitCounters.hit('ip:2', 0, 1, 60)),
      );
      expect(Math.max(...concurrent)).toBe(20);
      expect(await storage.rateLimitCounters.purgeExpired(100)).toBe(1);
    });
  });

  it('pings', async () => {
    expect(await storage.ping()).toBeGreaterThanOrEqual(0);
  });

  it('reopens a migrated database without reapplying or losing data', async () => {
    await storage.skills.replaceAll([skill('kept')], 1);
    const again = await openStorage(target);
    try {
      expect(again.kind).toBe(t.name);
      expect((await again.skills.get('kept'))?.name).toBe('kept');
    } finally {
      await again.close();
    }
  });
});
