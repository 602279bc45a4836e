// Issue 4 benchmark: ACP create (with an Idempotency-Key) and complete, throughput and p99, on SQLite
// and PostgreSQL, against a bare Fastify route doing one INSERT into the same database, same run.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { formatRow } from './load.ts';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

const BODY = JSON.stringify({
  line_items: [{ item: { id: 'plan_pro_monthly' } }, { item: { id: 'addon_backups' } }],
});

type Setup = (req: autocannon.Request, n: number) => autocannon.Request;

interface Op {
  url: string;
  request: autocannon.Request;
  setup?: Setup;
}

async function run(op: Op, opts: { seconds: number; connections: number }): Promise<Figures> {
  let n = 0;
  const { url, request, setup } = op;
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    requests: [
      {
        ...request,
        setupRequest: (req: autocannon.Request) => {
          n += 1;
          return setup ? setup(req, n) : req;
        },
      } as autocannon.Request,
    ],
  });
  if (r.errors + r.timeouts > 0 || r.non2xx > 0) {
    throw new Error(`${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  }
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function startChild(target: string, schema?: string) {
  const child = spawn(
    process.execPath,
    [new URL('./serve-checkout.ts', import.meta.url).pathname, target, ...(schema ? [schema] : [])],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    if (!child.stdout) return reject(new Error('no stdout'));
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`checkout bench server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { colonyUrl: string; bareUrl: string }) };
}

async function sessionsToComplete(colonyUrl: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${colonyUrl}/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
    });
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}

const LABELS: Record<string, string> = {
  bare: 'bare INSERT',
  create: 'ACP create (idem. key)',
  complete: 'ACP complete',
};

function printRows(name: string, runs: Record<string, Figures[]>): void {
  const sum = (op: string) => ({
    rps: median((runs[op] ?? []).map((f) => f.rps)),
    p50: median((runs[op] ?? []).map((f) => f.p50)),
    p99: median((runs[op] ?? []).map((f) => f.p99)),
  });
  const bare = sum('bare');
  for (const op of ['bare', 'create', 'complete']) {
    const f = sum(op);
    const cells = [
      name,
      LABELS[op] ?? op,
      f.rps.toFixed(0),
      f.p50.toFixed(2),
      f.p99.toFixed(2),
      (f.rps / bare.rps).toFixed(2),
    ];
    console.log(formatRow(cells, WIDTHS));
  }
}

const WIDTHS = [12, 26, 9, 8, 8, 10];

async function benchDatabase(
  name: string,
  target: string,
  opts: { seconds: number; connections: number; rounds: number },
  schema?: string,
) {
  const { child, colonyUrl, bareUrl } = await startChild(target, schema);
  try {
    const ids = await sessionsToComplete(colonyUrl, 500);
    const runId = randomBytes(4).toString('hex');
    const ops: Record<string, Op> = {
      create: {
        url: colonyUrl,
        request: {
          method: 'POST',
          path: '/checkout_sessions',
          headers: { 'content-type': 'application/json' },
          body: BODY,
        },
        setup: (req, n) => ({
          ...req,
          headers: { ...req.headers, 'idempotency-key': `${runId}-${n}-${Math.random()}` },
        }),
      },
      // Completing a session already handed off is allowed and writes a new revision each time.
      complete: {
        url: colonyUrl,
        request: {
          method: 'POST',
          path: '/checkout_sessions/x/complete',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        },
        setup: (req, n) => ({ ...req, path: `/checkout_sessions/${ids[n % ids.length]}/complete` }),
      },
      bare: {
        url: bareUrl,
        request: {
          method: 'POST',
          path: '/bare',
          headers: { 'content-type': 'application/json' },
          body: BODY,
        },
      },
    };
    const runs: Record<string, Figures[]> = { create: [], complete: [], bare: [] };
    // Warm-up, discarded: the first seconds measure the JIT.
    for (const op of Object.values(ops)) await run(op, { ...opts, seconds: 1 });
    for (let round = 0; round < opts.rounds; round++) {
      const order = round % 2 ? ['bare', 'create', 'complete'] : ['complete', 'create', 'bare'];
      for (const name of order) {
        const op = ops[name];
        if (op) runs[name]?.push(await run(op, opts));
      }
    }
    printRows(name, runs);
  } finally {
    child.kill('SIGTERM');
  }
}

export async function benchCheckout(opts: {
  seconds: number;
  connections: number;
  rounds: number;
}): Promise<boolean | 'skipped'> {
  console.log(
    `\n## ACP checkout (${opts.connections} connections, ${opts.rounds} x ${opts.seconds}s per target, alternating, medians)\n`,
  );
  console.log(
    formatRow(['database', 'target', 'req/s', 'p50 ms', 'p99 ms', 'rps ratio'], [12, 26, 9, 8, 8, 10]),
  );
  await benchDatabase('sqlite', 'sqlite', opts);
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) {
    console.log('postgres     skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL');
    return true;
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    await benchDatabase('postgres', url, opts, schema);
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  console.log(
    '\nThe ratio is against one bare INSERT per request; a checkout write is several statements (idempotency claim, session insert and the stored response in one transaction).',
  );
  return true;
}
