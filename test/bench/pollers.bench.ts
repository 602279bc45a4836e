// Issue 21 benchmark: what idle replicas ask of the shared database in a minute. Three replicas on
// one database at the shipped defaults (one elected poller leader, job runners woken rather than
// polling) against the same three as they ran before (COLONY_JOB_POLL_MS=500, every replica running
// every poller), in the same run. Simulated time (node:test's mock timers over SQLite) makes the
// minute exact and quick.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mock } from 'node:test';
import { migrations, storageRepositories } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { PollerGate } from '../../api/shared/poller-gate.ts';
import { openDatabase } from '../../api/storage/open-database.ts';
import { counting } from '../support/counting-driver.ts';
import { atMost, type GoalRow } from './goals.ts';

const REPLICAS = 3;

interface Setup {
  env: Record<string, string>;
  /** Which replicas run the cluster-wide pollers. */
  leading: boolean[];
}

/** Moves the mocked clock in small steps, letting the promises each step started settle. */
async function advance(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    mock.timers.tick(100);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  }
}

async function idleMinute(setup: Setup): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'colony-bench-pollers-'));
  const file = join(dir, 'colony.db');
  const tallies = setup.leading.map(() => new Map<string, number>());
  const closers: (() => Promise<void>)[] = [];
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() });
  try {
    for (const [i, leading] of setup.leading.entries()) {
      const tally = tallies[i] as Map<string, number>;
      const storage = await openDatabase(
        { kind: 'sqlite', file },
        { migrations, repositories: (d) => storageRepositories(counting(d, tally)) },
      );
      const config = loadConfig({ COLONY_DATA_DIR: dir, LOG_LEVEL: 'silent', ...setup.env });
      const app = await buildServer(config, { storage, pollerGate: new PollerGate(leading) });
      await app.ready();
      closers.push(async () => {
        await app.close();
        await storage.close();
      });
    }
    await advance(1_000);
    for (const t of tallies) t.clear();
    await advance(60_000);
    return tallies.map((t) => [...t.values()].reduce((a, b) => a + b, 0));
  } finally {
    mock.timers.reset();
    for (const close of closers) await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchPollers(): Promise<GoalRow[]> {
  const before = await idleMinute({
    env: { COLONY_JOB_POLL_MS: '500' },
    leading: Array(REPLICAS).fill(true),
  });
  const now = await idleMinute({ env: {}, leading: [true, ...Array(REPLICAS - 1).fill(false)] });
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const ratio = sum(now) / sum(before);
  console.log(
    `\n## Idle replicas' database statements per minute (${REPLICAS} replicas, simulated minute)\n`,
  );
  console.log('| setup | per replica | total |');
  console.log('|---|---|---|');
  console.log(`| before: every replica polls, job poll 500 ms | ${before.join(', ')} | ${sum(before)} |`);
  console.log(`| shipped: one poller leader, woken job runners | ${now.join(', ')} | ${sum(now)} |`);
  console.log(`\nratio shipped / before: ${ratio.toFixed(3)}`);
  // The goal: a tenth of the polling or less (issue 21 asked for the saving to be measured).
  return [atMost('idle statements a minute, 3 replicas', ratio, 0.1, '× every replica polling')];
}
