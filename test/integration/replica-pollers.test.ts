// Measures what idle replicas' background timers ask of the shared database in a minute, at the
// shipped defaults: the job runner's idle look on every replica, and the cluster-wide pollers (task
// scheduler, checkout sweeper) only on the replica the poller gate opens, moving when the leader does.
// Simulated time (fake timers, the driver's end-of-turn reads run as microtasks) keeps it exact.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { migrations, type Storage, storageRepositories } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { PollerGate } from '../../api/shared/poller-gate.ts';
import { openDatabase } from '../../api/storage/open-database.ts';
import { counting } from '../support/counting-driver.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const total = (tally: Map<string, number>) => [...tally.values()].reduce((a, b) => a + b, 0);

const IDLE_LOOK = 'SELECT MIN(CASE WHEN';
// Per minute at the defaults: the job runner's idle look every 10 s (COLONY_JOB_POLL_MS), and on the
// leader 4 task-scheduler reads of due tasks (15 s) and the checkout sweep's two statements (60 s).
const follower = { [IDLE_LOOK]: 6 };
const leader = {
  [IDLE_LOOK]: 6,
  'SELECT * FROM': 4,
  'UPDATE checkout_sessions SET': 1,
  'DELETE FROM checkout_idempotency': 1,
};

describe('background pollers', () => {
  it('idle replicas look for jobs rarely, and only the leader runs the cluster-wide pollers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'colony-pollers-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'colony.db');
    const tallies: Map<string, number>[] = [];
    const gates = [new PollerGate(true), new PollerGate(false), new PollerGate(false)];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    // The driver runs reads at the end of a turn of the event loop (setImmediate). Simulated time
    // has no turns: each poller's tick must finish at the instant its timer fired, as it does in
    // real time within a millisecond, or every tick would push the next one later.
    vi.stubGlobal('setImmediate', (run: () => void) => queueMicrotask(run));
    for (const pollerGate of gates) {
      const tally = new Map<string, number>();
      tallies.push(tally);
      const storage: Storage = await openDatabase(
        { kind: 'sqlite', file },
        { migrations, repositories: (d) => storageRepositories(counting(d, tally)) },
      );
      const config = loadConfig({ COLONY_DATA_DIR: dir, LOG_LEVEL: 'silent' });
      const app = await buildServer(config, { storage, pollerGate });
      await app.ready();
      cleanups.push(async () => {
        await app.close();
        await storage.close();
      });
    }
    const idleMinute = async () => {
      for (const t of tallies) t.clear();
      await vi.advanceTimersByTimeAsync(60_000);
      return tallies.map((t) => Object.fromEntries(t));
    };
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await idleMinute()).toEqual([leader, follower, follower]);
    expect(tallies.map(total)).toEqual([12, 6, 6]);

    // A new term: the old leader's pollers stop, the new one's start, the task scheduler at once
    // (so its minute has a fifth look, at its start).
    await gates[0]?.set(false);
    await gates[2]?.set(true);
    expect(await idleMinute()).toEqual([follower, follower, { ...leader, 'SELECT * FROM': 5 }]);
  });
});
