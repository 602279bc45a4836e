// Issue 2 benchmark: GET /api/v1/pricing and /api/v1/skills?limit=100 on Colony's server against a
// bare Fastify route serving the same bytes, measured in the same run. Target: ratio >= 0.8 (at warn).
// Issue 19, defaults: the same server at the shipped log level (info), logging every request, beside
// warn. Target: at least 0.85 of warn's throughput. The first path is also measured at 1, 8, 32 and
// 64 connections, to show how each figure grows with the load.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { atLeast, type GoalRow } from './goals.ts';
import { formatRow, load } from './load.ts';

const PATHS = ['/api/v1/pricing', '/api/v1/skills?limit=100'];
const SCALE = [1, 8, 32, 64];
const VS_BARE = 0.8;
const LOGGING_VS_WARN = 0.85;
const TARGETS = ['bare', 'warn', 'shipped'] as const;

type Target = (typeof TARGETS)[number];
type Urls = Record<Target, string>;
type Figures = { rps: number; p50: number; p99: number; cpuUs: number; total: number };
type Options = { seconds: number; connections: number; rounds: number };

function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m: { user: number; system: number }) => resolve(m.user + m.system));
    child.send('cpu');
  });
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const summarise = (fs: Figures[]): Figures => ({
  rps: median(fs.map((f) => f.rps)),
  p50: median(fs.map((f) => f.p50)),
  p99: median(fs.map((f) => f.p99)),
  cpuUs: median(fs.map((f) => f.cpuUs)),
  total: fs.reduce((n, f) => n + f.total, 0),
});

/** One load run against one target, with the server's CPU time per request over that run. */
async function run(child: ChildProcess, url: string, connections: number, seconds: number): Promise<Figures> {
  const before = await serverCpu(child);
  const f = await load(url, { connections, seconds });
  const cpuUs = (await serverCpu(child)) - before;
  if (f.errors > 0 || f.non2xx > 0) throw new Error(`${url}: ${f.errors} errors, ${f.non2xx} non-2xx`);
  return { ...f, cpuUs: cpuUs / f.total };
}

/**
 * Short rounds rotate over the three targets and the median of each is kept: on a shared, noisy
 * machine that cancels most of what the neighbours do.
 */
async function measure(
  child: ChildProcess,
  urls: Urls,
  path: string,
  connections: number,
  opts: Options,
): Promise<Record<Target, Figures>> {
  const runs: Record<Target, Figures[]> = { bare: [], warn: [], shipped: [] };
  for (let round = 0; round < opts.rounds; round++) {
    for (let k = 0; k < TARGETS.length; k++) {
      const name = TARGETS[(round + k) % TARGETS.length] as Target;
      runs[name].push(await run(child, `${urls[name]}${path}`, connections, opts.seconds));
    }
  }
  return { bare: summarise(runs.bare), warn: summarise(runs.warn), shipped: summarise(runs.shipped) };
}

const WIDTHS = [26, 6, 13, 8, 9, 8, 8, 13, 10, 10];

function printFigures(path: string, connections: number, t: Record<Target, Figures>, shippedLevel: string) {
  const label: Record<Target, string> = { bare: 'bare', warn: 'warn', shipped: shippedLevel };
  for (const name of TARGETS) {
    const f = t[name];
    const cells = [path, connections, label[name], f.rps.toFixed(0), f.p50.toFixed(2), f.p99.toFixed(2)];
    const vsBare = [(f.rps / t.bare.rps).toFixed(2), (t.bare.cpuUs / f.cpuUs).toFixed(2)];
    const vsWarn = name === 'shipped' ? (f.rps / t.warn.rps).toFixed(2) : '';
    console.log(formatRow([...cells, f.cpuUs.toFixed(1), ...vsBare, vsWarn], WIDTHS));
  }
}

function goalRows(path: string, connections: number, t: Record<Target, Figures>, shippedLevel: string) {
  const at = `${path}, ${connections} conns`;
  return [
    atLeast(`${at}, warn`, t.warn.rps / t.bare.rps, VS_BARE, '× bare route'),
    atLeast(`${at}, ${shippedLevel} (default)`, t.shipped.rps / t.warn.rps, LOGGING_VS_WARN, '× warn'),
  ];
}

/**
 * The log lines the default-level server wrote, per request it answered (one is the design). Read as
 * a stream, line by line: on a fast machine the run writes more than one string can hold (512 MiB).
 */
async function linesPerRequest(logFile: string, requests: number): Promise<string> {
  let completed = 0;
  let all = 0;
  for await (const line of createInterface({ input: createReadStream(logFile), crlfDelay: Infinity })) {
    all += 1;
    if (line.includes('"msg":"request completed"')) completed += 1;
  }
  return `${completed} request lines, ${all} in all, for ${requests} requests counted by the load generator`;
}

function startServer(logFd: number): Promise<{ child: ChildProcess; urls: Urls; shippedLevel: string }> {
  const child = spawn(
    process.execPath,
    [new URL('./serve-public-read.ts', import.meta.url).pathname, JSON.stringify(PATHS)],
    // Log lines go to a file, as a container runtime takes them: the load generator never reads them.
    { stdio: ['ignore', logFd, 'inherit', 'ipc'] },
  );
  return new Promise((resolve, reject) => {
    child.once('message', (m: { urls: Urls; shippedLevel: string }) => resolve({ child, ...m }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

export async function benchPublicRead(opts: Options): Promise<GoalRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'colony-bench-logs-'));
  const logFile = join(dir, 'server.log');
  const logFd = openSync(logFile, 'w');
  const { child, urls, shippedLevel } = await startServer(logFd);
  try {
    console.log(
      `\n## Public read API (${opts.rounds} x ${opts.seconds}s per target, rotating, medians; Colony at warn and at the default level, ${shippedLevel})\n`,
    );
    const head = ['path', 'conns', 'target', 'req/s', 'p50 ms', 'p99 ms', 'server µs/req'];
    console.log(formatRow([...head, '× bare', 'cpu × bare', '× warn'], WIDTHS));
    const rows: GoalRow[] = [];
    let shippedRequests = 0;
    for (const [i, path] of PATHS.entries()) {
      // Warm-up, discarded: until the JIT has compiled every path, the first rounds measure the compiler.
      for (const name of TARGETS) {
        const f = await run(child, `${urls[name]}${path}`, opts.connections, opts.seconds);
        if (name === 'shipped') shippedRequests += f.total;
      }
      const levels =
        i === 0 ? [...new Set([...SCALE, opts.connections])].sort((a, b) => a - b) : [opts.connections];
      for (const connections of levels) {
        const t = await measure(child, urls, path, connections, opts);
        shippedRequests += t.shipped.total;
        printFigures(path, connections, t, shippedLevel);
        rows.push(...goalRows(path, connections, t, shippedLevel));
      }
    }
    // Lines leave the server in batches: count them once it has exited, when every one is written.
    await stop(child);
    console.log(`\nlog at ${shippedLevel}: ${await linesPerRequest(logFile, shippedRequests)}`);
    return rows;
  } finally {
    await stop(child);
    closeSync(logFd);
    rmSync(dir, { recursive: true, force: true });
  }
}
