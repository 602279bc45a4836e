// Issue 15 benchmark: what the input guards (U+0000, body depth, header count; api/shared/input-guards.ts)
// cost on the public read path: Colony's server with them (shipped defaults) against the same server
// built without them, in the same run. Target: guarded throughput at least 0.98 of unguarded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { atLeast, type GoalRow } from './goals.ts';
import { formatRow } from './load.ts';

const PATHS = ['/api/v1/skills?limit=100', '/api/v1/pricing'];
const TARGET = 0.98;

/** CPU microseconds this process has used (user and system). */
function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** The mean of the middle 80%: a garbage collection or a neighbour's burst lands in the tails. */
function trimmedMean(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const kept = sorted.slice(Math.floor(sorted.length * 0.1), Math.ceil(sorted.length * 0.9));
  return kept.reduce((sum, x) => sum + x, 0) / kept.length;
}

interface Target {
  guards: boolean;
  app: FastifyInstance;
  dataDir: string;
}

async function build(guards: boolean): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'colony-bench-'));
  const config = loadConfig({
    COLONY_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    COLONY_API_RATE_LIMIT: '1000000000',
  });
  const app = await buildServer(config, { runJobs: false, inputGuards: guards });
  await app.ready();
  return { guards, app, dataDir };
}

/**
 * A 2% difference is far below what a loaded machine does to wall-clock runs, so each request's own CPU
 * time is measured instead, requests rotate one by one over the servers (so drift hits all alike), and
 * two servers of each kind, built in the order on-off-off-on, cancel any bias from build order.
 * Requests go through the whole server (routing, hooks, handler, serialisation) by inject(): without
 * the socket the guards' share only looks larger, never smaller.
 */
async function measure(targets: Target[], path: string, requests: number) {
  const cpu = { on: [] as number[], off: [] as number[] };
  for (let i = 0; i < 2_000; i++) for (const t of targets) await t.app.inject({ url: path }); // JIT warm-up
  for (let i = 0; i < requests; i++) {
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(i + k) % targets.length] as Target;
      const before = cpuNow();
      const res = await t.app.inject({ url: path });
      cpu[t.guards ? 'on' : 'off'].push(cpuNow() - before);
      if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
    }
  }
  const on = trimmedMean(cpu.on);
  const off = trimmedMean(cpu.off);
  return { on, off, ratio: off / on };
}

export async function benchInputGuards(opts: { requests: number }): Promise<GoalRow[]> {
  const targets = [await build(true), await build(false), await build(false), await build(true)];
  try {
    console.log(
      `\n## Input guards on the public read path (${opts.requests} requests per server, two servers each way, per-request CPU, trimmed means)\n`,
    );
    const widths = [26, 16, 16, 18];
    console.log(formatRow(['path', 'off µs/req', 'on µs/req', 'throughput ratio'], widths));
    const rows: GoalRow[] = [];
    for (const path of PATHS) {
      const m = await measure(targets, path, opts.requests);
      rows.push(atLeast(`${path} with guards`, m.ratio, TARGET, '× without'));
      console.log(formatRow([path, m.off.toFixed(1), m.on.toFixed(1), m.ratio.toFixed(3)], widths));
    }
    return rows;
  } finally {
    for (const t of targets) {
      await t.app.close();
      rmSync(t.dataDir, { recursive: true, force: true });
    }
  }
}
