// Issue 2 benchmark: GET /api/v1/pricing and /api/v1/skills?limit=100 on Colony's server against a
// bare Fastify route serving the same bytes, measured in the same run. Target: ratio >= 0.8.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { formatRow, load } from './load.ts';

const PATHS = ['/api/v1/pricing', '/api/v1/skills?limit=100'];

type Averages = { rps: number; p50: number; p99: number };

/** Alternating short rounds spread the machine's noise evenly over both targets. */
async function measurePath(
  path: string,
  urls: { colony: string; bare: string },
  opts: { seconds: number; connections: number; rounds: number },
): Promise<{ colony: Averages; bare: Averages }> {
  const totals = { colony: { rps: 0, p50: 0, p99: 0 }, bare: { rps: 0, p50: 0, p99: 0 } };
  for (let round = 0; round < opts.rounds; round++) {
    for (const name of ['bare', 'colony'] as const) {
      const f = await load(`${urls[name]}${path}`, opts);
      if (f.errors > 0 || f.non2xx > 0)
        throw new Error(`${name} ${path}: ${f.errors} errors, ${f.non2xx} non-2xx`);
      totals[name].rps += f.rps / opts.rounds;
      totals[name].p50 += f.p50 / opts.rounds;
      totals[name].p99 += f.p99 / opts.rounds;
    }
  }
  return totals;
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
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
    const { colonyUrl, bareUrl, logLevel } = JSON.parse(first) as Record<string, string>;
    console.log(
      `\n## Public read API (${opts.connections} connections, ${opts.rounds} x ${opts.seconds}s per target, alternating; log level ${logLevel})\n`,
    );
    const widths = [28, 10, 10, 10, 10, 8];
    console.log(formatRow(['path', 'target', 'req/s', 'p50 ms', 'p99 ms', 'ratio'], widths));
    let ok = true;
    for (const path of PATHS) {
      const totals = await measurePath(path, { colony: colonyUrl ?? '', bare: bareUrl ?? '' }, opts);
      const ratio = totals.colony.rps / totals.bare.rps;
      ok &&= ratio >= 0.8;
      for (const name of ['bare', 'colony'] as const) {
        const t = totals[name];
        const cells = [path, name, t.rps.toFixed(0), t.p50.toFixed(2), t.p99.toFixed(2)];
        console.log(formatRow([...cells, name === 'colony' ? ratio.toFixed(2) : '1.00'], widths));
      }
    }
    console.log(`\nthroughput ratio target >= 0.80: ${ok ? 'met' : 'NOT met'}`);
    return ok;
  } finally {
    child.kill('SIGTERM');
  }
}
