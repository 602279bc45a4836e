// Reads queued in one turn of the event loop run together at its end, in order, each with its own
// outcome; and the SQLite driver keeps every statement in the order it was asked for.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ReadBatch } from '../../../api/storage/read-batch.ts';
import { SqliteDriver } from '../../../api/storage/sqlite-driver.ts';

const noTransaction = () => undefined;

describe('ReadBatch', () => {
  it('runs the reads of one turn together after it, in the order they were asked for', async () => {
    const ran: number[] = [];
    const batch = new ReadBatch(noTransaction);
    const answers = [1, 2, 3].map((n) => batch.queue(() => ran.push(n) && n * 10));
    await Promise.resolve();
    expect(ran).toEqual([]); // not within the turn that asked
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
    expect(ran).toEqual([1, 2, 3]);
  });

  it('settles each read with its own outcome', async () => {
    const batch = new ReadBatch(noTransaction);
    const good = batch.queue(() => 'row');
    const bad = batch.queue(() => {
      throw new Error('no such table');
    });
    const after = batch.queue(() => 'later row');
    await expect(bad).rejects.toThrow('no such table');
    expect(await good).toBe('row');
    expect(await after).toBe('later row');
  });

  it('waits while a transaction is open, and for the next one that opens as it closes', async () => {
    const transaction = () => {
      const { promise, resolve } = Promise.withResolvers<void>();
      return { promise, close: resolve };
    };
    const first = transaction();
    const second = transaction();
    let open: Promise<void> | undefined = first.promise;
    const ran: string[] = [];
    const batch = new ReadBatch(() => open);
    const read = batch.queue(() => ran.push('read'));
    await nextTurn();
    await nextTurn();
    expect(ran).toEqual([]);
    open = second.promise; // the next transaction began as the first committed
    first.close();
    await nextTurn();
    expect(ran).toEqual([]);
    open = undefined;
    second.close();
    await read;
    expect(ran).toEqual(['read']);
  });

  it('runs what is queued at once when asked, and settled() waits for a scheduled batch', async () => {
    const ran: string[] = [];
    const batch = new ReadBatch(noTransaction);
    const first = batch.queue(() => ran.push('first'));
    batch.runNow();
    expect(ran).toEqual(['first']);
    await first;
    batch.queue(() => ran.push('second'));
    await batch.settled();
    expect(ran).toEqual(['first', 'second']);
  });
});

describe('SqliteDriver statement order with batched reads', () => {
  const withTable = async (fn: (db: SqliteDriver) => Promise<void>) => {
    const db = new SqliteDriver(':memory:');
    try {
      await db.query('CREATE TABLE t (x INTEGER)');
      await fn(db);
    } finally {
      await db.close();
    }
  };
  const count = (db: SqliteDriver) =>
    db.query<{ n: number }>('SELECT count(*) AS n FROM t').then((rows) => Number(rows[0]?.n));

  it('answers a read asked for before a write with the rows as they were', () =>
    withTable(async (db) => {
      const before = count(db);
      const write = db.query('INSERT INTO t (x) VALUES (1)');
      expect(await before).toBe(0);
      await write;
      expect(await count(db)).toBe(1);
    }));

  it('answers a read asked for before a transaction with the rows as they were', () =>
    withTable(async (db) => {
      const before = count(db);
      const tx = db.transaction(async (t) => {
        await t.query('INSERT INTO t (x) VALUES (1)');
      });
      expect(await before).toBe(0);
      await tx;
      expect(await count(db)).toBe(1);
    }));

  it('never shows a read what an open transaction has not committed', () =>
    withTable(async (db) => {
      let finish!: () => void;
      const held = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const tx = db.transaction(async (t) => {
        await t.query('INSERT INTO t (x) VALUES (1)');
        await held;
        throw new Error('rolled back');
      });
      // Asked for while the transaction is open (its insert done, its commit not): the read waits.
      await nextTurn();
      let seen: number | undefined;
      const read = count(db).then((n) => {
        seen = n;
      });
      await nextTurn();
      await nextTurn();
      expect(seen).toBeUndefined();
      finish();
      await expect(tx).rejects.toThrow('rolled back');
      await read;
      expect(seen).toBe(0);
    }));

  it('never runs a write inside a transaction asked for just before it', () =>
    withTable(async (db) => {
      // The transaction takes the lock when asked; the write asked for next waits for it to end
      // (with the reads it runs first), rather than running inside it and being rolled back with it.
      const tx = db.transaction(async (t) => {
        await t.query('INSERT INTO t (x) VALUES (1)');
        await nextTurn();
        throw new Error('rolled back');
      });
      const write = db.query('INSERT INTO t (x) VALUES (2)');
      await expect(tx).rejects.toThrow('rolled back');
      await write;
      expect(await db.query('SELECT x FROM t')).toEqual([{ x: 2 }]);
    }));

  it('finishes queued reads before it closes', async () => {
    const db = new SqliteDriver(':memory:');
    const read = db.query<{ one: number }>('SELECT 1 AS one');
    await db.close();
    expect(await read).toEqual([{ one: 1 }]);
  });
});
