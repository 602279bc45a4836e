// Snapshot metadata, restores and schedules, run unchanged against embedded SQLite and real PostgreSQL.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { initialParts, newRestoreId, newSnapshotId } from '../../api/backups/snapshot-model.ts';
import { RestoreInProgressError } from '../../api/backups/snapshots-repo.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('snapshots repository on $name', (t) => {
  let storage: Storage;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const made = await t.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
  });
  afterEach(async () => {
    await storage.close();
    await dispose();
  });

  const snapshot = (officeId: string, extra: { idempotencyKey?: string; requestHash?: string } = {}) => ({
    id: newSnapshotId(),
    officeId,
    trigger: 'manual' as const,
    description: null,
    parts: initialParts(),
    createdBy: 'operator:test',
    ...extra,
  });

  it('creates one snapshot per idempotency key, even when many race for it', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => storage.snapshots.create(snapshot('o1', { idempotencyKey: 'k1' }), 5)),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.snapshot.id)).size).toBe(1);
    expect(results[0]?.snapshot).toMatchObject({
      status: 'pending',
      officeId: 'o1',
      createdAt: 5,
      parts: initialParts(),
    });
  });

  it('lists newest first, filtered by the offices a credential covers, in keyset pages', async () => {
    for (let i = 0; i < 5; i++) await storage.snapshots.create(snapshot(i % 2 ? 'odd' : 'even'), 100 + i);
    const all = await storage.snapshots.list({ offices: '*', limit: 10 });
    expect(all.map((s) => s.createdAt)).toEqual([104, 103, 102, 101, 100]);
    expect((await storage.snapshots.list({ offices: ['odd'], limit: 10 })).map((s) => s.createdAt)).toEqual([
      103, 101,
    ]);
    expect(await storage.snapshots.list({ offices: [], limit: 10 })).toEqual([]);
    const first = await storage.snapshots.list({ offices: '*', limit: 2 });
    const last = first.at(-1) as { createdAt: number; id: string };
    const next = await storage.snapshots.list({ offices: '*', limit: 2, before: last });
    expect(next.map((s) => s.createdAt)).toEqual([102, 101]);
  });

  it('updates conditionally and tombstones only finished snapshots', async () => {
    const { snapshot: s } = await storage.snapshots.create(snapshot('o1'), 1);
    expect(await storage.snapshots.markDeleted(s.id, 2)).toBeUndefined();
    expect(await storage.snapshots.update(s.id, { status: 'running' }, 3, ['completed'])).toBeUndefined();
    const done = await storage.snapshots.update(
      s.id,
      { status: 'completed', sizeBytes: 42, completedAt: 4 },
      4,
    );
    expect(done).toMatchObject({ status: 'completed', sizeBytes: 42, completedAt: 4 });
    expect(await storage.snapshots.markDeleted(s.id, 5)).toMatchObject({ status: 'deleted', deletedAt: 5 });
    expect(await storage.snapshots.list({ offices: '*', limit: 10 })).toEqual([]);
    expect(await storage.snapshots.list({ offices: '*', status: 'deleted', limit: 10 })).toHaveLength(1);
  });

  it('records restores with their report, one per idempotency key', async () => {
    const { snapshot: s } = await storage.snapshots.create(snapshot('o1'), 1);
    const make = () =>
      storage.snapshots.createRestore(
        {
          id: newRestoreId(),
          snapshotId: s.id,
          officeId: 'o1',
          createdBy: 'x',
          report: { database: { status: 'pending', tables: 0, rows: 0 } },
          idempotencyKey: 'r1',
        },
        2,
      );
    const [a, b] = await Promise.all([make(), make()]);
    expect([a?.created, b?.created].sort()).toEqual([false, true]);
    const r = await storage.snapshots.updateRestore(a.restore.id, { status: 'completed', completedAt: 3 }, 3);
    expect(r).toMatchObject({ status: 'completed', report: { database: { status: 'pending' } } });
  });

  it('allows one restore in progress per office, whatever the race, and replays a key', async () => {
    const { snapshot: s } = await storage.snapshots.create(snapshot('o2'), 1);
    const attempt = (key: string) =>
      storage.snapshots
        .createRestore(
          {
            id: newRestoreId(),
            snapshotId: s.id,
            officeId: 'o2',
            createdBy: 'x',
            report: {},
            idempotencyKey: key,
          },
          2,
        )
        .then(
          (r) => (r.created ? 'created' : 'replayed'),
          (err) => (err instanceof RestoreInProgressError ? 'refused' : 'error'),
        );
    const outcomes = await Promise.all(['a', 'b', 'c', 'd', 'a'].map(attempt));
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect(outcomes).not.toContain('error');
    const [active] = await storage.snapshots.activeRestores({ officeId: 'o2' });
    expect(await attempt(active?.idempotencyKey ?? '')).toBe('replayed');
    expect(await storage.snapshots.activeRestores({ snapshotId: s.id })).toHaveLength(1);
    await storage.snapshots.updateRestore(active?.id ?? '', { status: 'completed' }, 3);
    expect(await attempt('e')).toBe('created');
  });

  it('lets exactly one of two sweepers claim a due scheduled run', async () => {
    await storage.snapshots.ensureSchedule({
      officeId: 'o1',
      enabled: true,
      hourUtc: 3,
      retentionDays: 30,
      nextRunAt: 10,
      updatedAt: 1,
    });
    const kept = await storage.snapshots.ensureSchedule({
      officeId: 'o1',
      enabled: false,
      hourUtc: 5,
      retentionDays: 1,
      nextRunAt: 99,
      updatedAt: 2,
    });
    expect(kept).toMatchObject({ enabled: true, hourUtc: 3, nextRunAt: 10 });
    const claims = await Promise.all([1, 2, 3].map(() => storage.snapshots.claimRun('o1', 10, 20, 11)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await storage.snapshots.getSchedule('o1')).toMatchObject({ nextRunAt: 20 });
  });
});
