// Measures what an idle replica's background timers ask of the shared database in a minute (job runner
// poll, task scheduler, checkout sweeper, backups sweep): each replica polls on its own, so N replicas
// cost N times one. Simulated time (fake timers over the synchronous SQLite driver) keeps it exact.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrations, type Storage, storageRepositories } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { openDatabase } from '../../api/storage/open-database.ts';
import type { SqlDriver } from '../../api/storage/sql-driver.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A driver that tallies the statements it runs by their first words. */
function counting(driver: SqlDriver, tally: Map<string, number>): SqlDriver {
  const count = (sql: string) => {
    const head = sql.trim().split(/\s+/).slice(0, 3).join(' ');
    tally.set(head, (tally.get(head) ?? 0) + 1);
  };
  return {
    dialect: driver.dialect,
    query: (sql, params) => {
      count(sql);
      return driver.query(sql, params);
    },
    transaction: (fn) =>
      driver.transaction((tx) =>
        fn({
          dialect: tx.dialect,
          query: (sql, params) => {
            count(sql);
            return tx.query(sql, params);
          },
        }),
      ),
    close: () => driver.close(),
  };
}

const total = (tally: Map<string, number>) => [...tally.values()].reduce((a, b) => a + b, 0);

describe('background pollers', () => {
  it('every idle replica polls the shared database on its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'colony-pollers-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'colony.db');
    const tallies: Map<string, number>[] = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    for (let i = 0; i < 3; i++) {
      const tally = new Map<string, number>();
      tallies.push(tally);
      const storage: Storage = await openDatabase(
        { kind: 'sqlite', file },
        { migrations, repositories: (d) => storageRepositories(counting(d, tally)) },
      );
      // Default intervals: job poll 500 ms, task scheduler 15 s, checkout sweep 60 s, backups 300 s.
      const config = loadConfig({ COLONY_DATA_DIR: dir, LOG_LEVEL: 'silent' });
      const app = await buildServer(config, { storage });
      await app.ready();
      cleanups.push(async () => {
        await app.close();
        await storage.close();
      });
    }
    await vi.advanceTimersByTimeAsync(1_000);
    for (const t of tallies) t.clear();
    await vi.advanceTimersByTimeAsync(60_000);

    // Per replica and minute: 120 job claims (every 500 ms), 4 task-scheduler reads of due tasks, and
    // the checkout sweep's two statements; docs/decisions.md ("One leader for the pollers") uses these.
    for (const t of tallies) {
      expect(Object.fromEntries(t)).toEqual({
        'UPDATE jobs SET': 120,
        'SELECT * FROM': 4,
        'UPDATE checkout_sessions SET': 1,
        'DELETE FROM checkout_idempotency': 1,
      });
    }
    expect(tallies.map(total)).toEqual([126, 126, 126]);
  });
});
