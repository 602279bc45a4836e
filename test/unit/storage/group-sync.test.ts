// Group commit on SQLite: a write is acknowledged only by a sync that started after it, one sync serves
// every write that waited for it, and a failed sync never acknowledges anything. Writes that queue
// together also share one COMMIT, each in a savepoint of its own.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupSync } from '../../../api/storage/group-sync.ts';
import { DatabaseUnavailableError, type SqlExecutor } from '../../../api/storage/sql-driver.ts';
import { SqliteDriver } from '../../../api/storage/sqlite-driver.ts';
import { eventually } from '../../support/eventually.ts';

/** A stand-in fsync that finishes only when the test says so. */
function fakeDisk() {
  const calls: PromiseWithResolvers<void>[] = [];
  return {
    calls,
    sync: () => {
      const call = Promise.withResolvers<void>();
      calls.push(call);
      return call.promise;
    },
  };
}

/** Tracks whether a promise has settled, and how. */
function watch(p: Promise<unknown>) {
  const state: { settled: 'no' | 'resolved' | 'rejected'; error?: unknown } = { settled: 'no' };
  p.then(
    () => {
      state.settled = 'resolved';
    },
    (error: unknown) => {
      state.settled = 'rejected';
      state.error = error;
    },
  );
  return state;
}

// Lets every pending promise callback run (no timer involved).
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The first write is acknowledged by the first sync; the second, made while it ran, only by the next. */
async function expectAcknowledgedInTurn(
  disk: ReturnType<typeof fakeDisk>,
  first: ReturnType<typeof watch>,
  second: ReturnType<typeof watch>,
) {
  expect(second.settled).toBe('no');
  disk.calls[0]?.resolve();
  await flush();
  expect(first.settled).toBe('resolved');
  expect(second.settled).toBe('no');
  disk.calls[1]?.resolve();
  await flush();
  expect(second.settled).toBe('resolved');
}

describe('GroupSync', () => {
  it('acknowledges the writes made while a sync runs with one next sync', async () => {
    const disk = fakeDisk();
    const group = new GroupSync(disk.sync);
    const first = watch(group.afterCommit());
    const later = [watch(group.afterCommit()), watch(group.afterCommit()), watch(group.afterCommit())];
    expect(disk.calls).toHaveLength(1);

    disk.calls[0]?.resolve();
    await flush();
    expect(first.settled).toBe('resolved');
    // The running sync may have started before their commits: they need the next one.
    expect(later.map((w) => w.settled)).toEqual(['no', 'no', 'no']);
    expect(disk.calls).toHaveLength(2);

    disk.calls[1]?.resolve();
    await flush();
    expect(later.map((w) => w.settled)).toEqual(['resolved', 'resolved', 'resolved']);
    expect(disk.calls).toHaveLength(2);
  });

  it('runs no sync when nothing was written', async () => {
    const disk = fakeDisk();
    const group = new GroupSync(disk.sync);
    await group.settled();
    expect(disk.calls).toHaveLength(0);
  });

  it('rejects the waiting writes and every later one once a sync fails', async () => {
    const disk = fakeDisk();
    const group = new GroupSync(disk.sync);
    const first = watch(group.afterCommit());
    const second = watch(group.afterCommit());
    disk.calls[0]?.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await flush();
    expect(first.settled).toBe('rejected');
    expect(first.error).toBeInstanceOf(DatabaseUnavailableError);
    expect(second.settled).toBe('rejected');
    await expect(group.afterCommit()).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(disk.calls).toHaveLength(1);
  });
});

describe('SqliteDriver durability barrier', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function driver() {
    dir = mkdtempSync(join(tmpdir(), 'colony-group-sync-'));
    const disk = fakeDisk();
    const db = new SqliteDriver(join(dir, 'colony.db'), { sync: disk.sync });
    const created = db.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    await flush();
    disk.calls.shift()?.resolve();
    await created;
    return { db, disk };
  }

  it('holds a write until a sync, answers reads at once, and lets the next transaction commit meanwhile', async () => {
    const { db, disk } = await driver();

    const insert = watch(db.query('INSERT INTO t (id, v) VALUES (1, $1)', ['a']));
    await flush();
    expect(insert.settled).toBe('no');
    // The row is committed (visible) but not acknowledged; reading does not wait for the disk.
    expect(await db.query('SELECT v FROM t WHERE id = 1')).toEqual([{ v: 'a' }]);

    const tx = watch(
      db.transaction(async (t) => {
        await t.query('INSERT INTO t (id, v) VALUES (2, $1)', ['b']);
      }),
    );
    await flush();
    expect(tx.settled).toBe('no');
    expect(disk.calls).toHaveLength(1);

    await expectAcknowledgedInTurn(disk, insert, tx);
    await db.close();
  });

  it('lets a statement that changed nothing through, unless a commit it may have seen awaits its sync', async () => {
    const { db, disk } = await driver();
    await db.query('UPDATE t SET v = $1 WHERE id = 99', ['none']);
    expect(disk.calls).toHaveLength(0);

    const insert = watch(db.query('INSERT INTO t (id, v) VALUES (5, $1)', ['e']));
    await flush();
    const sawIt = watch(db.query('INSERT INTO t (id, v) VALUES (5, $1) ON CONFLICT (id) DO NOTHING', ['e']));
    await flush();
    await expectAcknowledgedInTurn(disk, insert, sawIt);
    await db.close();
  });

  it('answers 503, never success, when the sync fails, and for every later statement', async () => {
    const { db, disk } = await driver();
    const insert = db.query('INSERT INTO t (id, v) VALUES (3, $1)', ['c']);
    await flush();
    disk.calls.at(-1)?.reject(new Error('EIO'));
    await expect(insert).rejects.toMatchObject({ statusCode: 503 });
    // The disk may have dropped what it was given: nothing is served from this file until a restart.
    await expect(db.query('SELECT v FROM t')).rejects.toMatchObject({ statusCode: 503 });
    await expect(db.transaction(async () => 1)).rejects.toMatchObject({ statusCode: 503 });
    await db.close();
  });

  it('close waits for the pending sync', async () => {
    const { db, disk } = await driver();
    const insert = watch(db.query('INSERT INTO t (id, v) VALUES (4, $1)', ['d']));
    await flush();
    const closing = db.close();
    const closed = watch(closing);
    await flush();
    expect(closed.settled).toBe('no');
    disk.calls.at(-1)?.resolve();
    await closing;
    expect(insert.settled).toBe('resolved');
  });

  it('has no barrier in memory, and a real fdatasync acknowledges a file write', async () => {
    const memory = new SqliteDriver(':memory:', { sync: () => new Promise(() => {}) });
    await memory.query('CREATE TABLE m (id INTEGER)');
    await memory.query('INSERT INTO m VALUES (1)');
    await memory.close();

    dir = mkdtempSync(join(tmpdir(), 'colony-group-sync-'));
    const real = new SqliteDriver(join(dir, 'colony.db'));
    await real.query('CREATE TABLE r (id INTEGER)');
    await real.transaction((t) => t.query('INSERT INTO r VALUES (1)'));
    expect(await real.query('SELECT id FROM r')).toEqual([{ id: 1 }]);
    await real.close();
  });

  it('checkpoints on its worker: committed pages reach the database file without the event loop', async () => {
    dir = mkdtempSync(join(tmpdir(), 'colony-group-sync-'));
    const file = join(dir, 'colony.db');
    const db = new SqliteDriver(file);
    await db.query('CREATE TABLE big (id INTEGER PRIMARY KEY, v TEXT)');
    const before = statSync(file).size;
    // About 2 MB: far below the event loop's own backstop of 10,000 pages.
    await db.transaction(async (t) => {
      for (let i = 0; i < 500; i++) await t.query('INSERT INTO big (v) VALUES ($1)', ['x'.repeat(4000)]);
    });
    await eventually(async () => statSync(file).size > before + 1_000_000);
    await db.close();
  });
});

describe('SqliteDriver shared commits', () => {
  let dir: string;
  let open: SqliteDriver | undefined;
  afterEach(async () => {
    await open?.close();
    open = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  async function driver(options: { fakeSync?: boolean } = {}) {
    dir = mkdtempSync(join(tmpdir(), 'colony-shared-commit-'));
    const disk = fakeDisk();
    const db = new SqliteDriver(join(dir, 'colony.db'), options.fakeSync ? { sync: disk.sync } : {});
    open = db;
    const created = db.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    await flush();
    disk.calls.shift()?.resolve();
    await created;
    return { db, disk, counts: () => db.commitCounts };
  }
  const ids = async (db: SqliteDriver) =>
    (await db.query<{ id: number }>('SELECT id FROM t ORDER BY id')).map((r) => r.id);
  const insert =
    (id: number, v = 'x') =>
    (tx: SqlExecutor) =>
      tx.query('INSERT INTO t (id, v) VALUES ($1, $2)', [id, v]).then(() => id);

  it('commits writes asked for together once, and each still gets its own answer', async () => {
    const { db, counts } = await driver();
    const start = counts();
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => db.transaction(insert(i + 1))),
      db.query('INSERT INTO t (id, v) VALUES (9, $1)', ['single']),
    ]);
    expect(answers.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(counts().commits - start.commits).toBe(1);
    expect(counts().writes - start.writes).toBe(9);
    expect(await ids(db)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('takes back only the changes of a transaction that fails, and tells that one alone', async () => {
    const { db, counts } = await driver();
    const start = counts().commits;
    const [a, failed, single, b] = await Promise.allSettled([
      db.transaction(insert(1)),
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id, v) VALUES (2, $1)', ['undone']);
        throw new Error('changed its mind');
      }),
      // A duplicate key fails the statement, not the commit it shares.
      db.query('INSERT INTO t (id, v) VALUES (1, $1)', ['duplicate']),
      db.transaction(insert(3)),
    ]);
    expect(a).toEqual({ status: 'fulfilled', value: 1 });
    expect(failed).toMatchObject({ status: 'rejected', reason: { message: 'changed its mind' } });
    expect(single).toMatchObject({ status: 'rejected', reason: { name: 'UniqueViolationError' } });
    expect(b).toEqual({ status: 'fulfilled', value: 3 });
    expect(counts().commits - start).toBe(1);
    expect(await ids(db)).toEqual([1, 3]);
  });

  it('answers no member of a commit that SQLite rolled back whole, and starts a new one after', async () => {
    const { db } = await driver();
    // RAISE(ROLLBACK) ends the whole transaction, as a full disk or an I/O error may.
    await db.query(
      `CREATE TRIGGER whole BEFORE INSERT ON t WHEN NEW.v = 'whole'
       BEGIN SELECT RAISE(ROLLBACK, 'rolled back whole'); END`,
    );
    const outcomes = await Promise.allSettled([
      db.transaction(insert(1)),
      db.transaction(insert(2, 'whole')),
      db.transaction(insert(3)),
    ]);
    // The first member's row went with the commit; the third ran after, in a commit of its own.
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(outcomes[0]).toMatchObject({ reason: { message: expect.stringContaining('rolled back whole') } });
    expect(await ids(db)).toEqual([3]);
  });

  it('acknowledges every member only after the sync that followed their commit', async () => {
    const { db, disk } = await driver({ fakeSync: true });
    const members = [1, 2, 3].map((id) => watch(db.transaction(insert(id))));
    await flush();
    expect(disk.calls).toHaveLength(1);
    expect(members.map((m) => m.settled)).toEqual(['no', 'no', 'no']);
    // Committed, so visible, before it is acknowledged.
    expect(await ids(db)).toEqual([1, 2, 3]);
    disk.calls[0]?.resolve();
    await flush();
    expect(members.map((m) => m.settled)).toEqual(['resolved', 'resolved', 'resolved']);
  });

  it('commits early for a read that waits, which sees the writes before it and none after', async () => {
    const { db, counts } = await driver();
    const start = counts().commits;
    let release!: () => void;
    const paused = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id, v) VALUES (1, $1)', ['first']);
      await paused;
      return 1;
    });
    const second = db.transaction(insert(2));
    await flush();
    const read = ids(db);
    await flush();
    release();
    expect(await read).toEqual([1]);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(counts().commits - start).toBe(2);
  });

  it('closes a commit at 32 writes even with more waiting', async () => {
    const { db, counts } = await driver();
    const start = counts().commits;
    await Promise.all(Array.from({ length: 40 }, (_, i) => db.transaction(insert(i + 1))));
    expect(counts().commits - start).toBe(2);
    expect((await ids(db)).length).toBe(40);
  });
});
