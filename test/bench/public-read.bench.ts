// Issue 2 benchmark: GET /api/v1/pricing and /api/v1/skills?limit=100 on Colony's server against a
// bare Fastify route serving the same bytes, measured in the same run. Target: ratio >= 0.8.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { formatRow, load } from './load.ts';

const PATHS = ['/api/v1/pricing', '/api/v1/skills?limit=100'];

type Figures = { rps: number; p50: number; p99: number; cpuUs: number };

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

/**
 * Short rounds alternate between the two targets and the median of each is kept: on a shared,
 * noisy machine that cancels most of what the neighbours do.
 */
async function measurePath(
  child: ChildProcess,
  path: string,
  urls: { colony: string; bare: string },
  opts: { seconds: number; connections: number; rounds: number },
): Promise<{ colony: Figures; bare: Figures }> {
  const runs = { colony: [] as Figures[], bare: [] as Figures[] };
  // Warm-up, discarded: until the JIT has compiled both paths, the first rounds measure the compiler.
  for (const name of ['colony', 'bare'] as const) await load(`${urls[name]}${path}`, opts);
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 ? (['colony', 'bare'] as const) : (['bare', 'colony'] as const);
    for (const name of order) {
      const before = await serverCpu(child);
      const f = await load(`${urls[name]}${path}`, opts);
      const cpuUs = (await serverCpu(child)) - before;
      if (f.errors > 0 || f.non2xx > 0) {
        throw new Error(`${name} ${path}: ${f.errors} errors, ${f.non2xx} non-2xx`);
      }
      runs[name].push({ ...f, cpuUs: cpuUs / f.total });
    }
  }
  const summarise = (fs: Figures[]) => ({
    rps: median(fs.map((f) => f.rps)),
    p50: median(fs.map((f) => f.p50)),
    p99: median(fs.map((f) => f.p99)),
    cpuUs: median(fs.map((f) => f.cpuUs)),
  });
  return { colony: summarise(runs.colony), bare: summarise(runs.bare) };
}

export async function benchPublicRead(opts: {
  seconds: number;
  connections: number;
  rounds: number;
}): Promise<boolean> {
  const child = spawn(
    process.execPath,
    [new URL('./serve-public-read.ts', import.meta.url).pathname, JSON.stringify(PATHS)],
    {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  try {
    const first = await new Promise<string>((resolve, reject) => {
      if (!child.stdout) return reject(new Error('bench server has no stdout'));
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
    const { colonyUrl, bareUrl, logLevel } = JSON.parse(first) as Record<string, string>;
    console.log(
      `\n## Public read API (${opts.connections} connections, ${opts.rounds} x ${opts.seconds}s per target, alternating, medians; log level ${logLevel})\n`,
    );
    const widths = [26, 8, 9, 8, 8, 13, 11, 10];
    const head = ['path', 'target', 'req/s', 'p50 ms', 'p99 ms', 'server µs/req', 'rps ratio', 'cpu ratio'];
    console.log(formatRow(head, widths));
    let ok = true;
    for (const path of PATHS) {
      const totals = await measurePath(child, path, { colony: colonyUrl ?? '', bare: bareUrl ?? '' }, opts);
      const ratio = totals.colony.rps / totals.bare.rps;
      // Capacity from server CPU alone: what the ratio would be if the load generator cost nothing.
      const cpuRatio = totals.bare.cpuUs / totals.colony.cpuUs;
      ok &&= ratio >= 0.8;
      for (const name of ['bare', 'colony'] as const) {
        const t = totals[name];
        const cells = [path, name, t.rps.toFixed(0), t.p50.toFixed(2), t.p99.toFixed(2), t.cpuUs.toFixed(1)];
        const ratios = name === 'colony' ? [ratio.toFixed(2), cpuRatio.toFixed(2)] : ['1.00', '1.00'];
        console.log(formatRow([...cells, ...ratios], widths));
      }
    }
    console.log(`\nthroughput ratio (rps ratio) target >= 0.80: ${ok ? 'met' : 'NOT met'}`);
    return ok;
  } finally {
    child.kill('SIGTERM');
  }
}
