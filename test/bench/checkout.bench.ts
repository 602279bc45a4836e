// Issue 19 benchmark: ACP create with an Idempotency-Key on SQLite and PostgreSQL, against a bare
// Fastify route doing one INSERT into the same database through the same driver (same durability),
// same run; how it grows from 1 to 64 connections and from 10k to 1M rows; and reads during writes.
// BENCH_CHECKOUT_ROWS (default 1,000,000) is the large row count; BENCH_CHECKOUT_DATABASES (default
// "sqlite,postgres") names the databases to measure.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { PostgresDriver } from '../../api/storage/postgres-driver.ts';
import type { SqlDriver } from '../../api/storage/sql-driver.ts';
import { SqliteDriver } from '../../api/storage/sqlite-driver.ts';
import {
  CREATE_BODY,
  checkoutOps,
  existingSessions,
  type Figures,
  JSON_HEADERS,
  medians,
  type Op,
  run,
} from './checkout-load.ts';
import { seedCheckoutRows } from './checkout-seed.ts';
import { atLeast, atMost, type GoalRow } from './goals.ts';
import { formatRow } from './load.ts';
import { type LoadSpec, openLoopInChild } from './open-loop.ts';

interface Options {
  seconds: number;
  connections: number;
  rounds: number;
}

// Issue 19's figures for this machine before the change: SQLite ACP create managed 142 req/s.
const SQLITE_BEFORE_RPS = 142;
const SCALE_CONNECTIONS = [1, 8, 32, 64];
// The mixed run's reads: a fixed offered load, so "during writes" differs from "alone" only by the writes.
const READ_RATE = 200;
const READ_CONNECTIONS = 8;
// Each round's loads run this many times the bench's seconds: at 3 s a round gave 600 reads, whose p99
// is the sixth-worst answer, and two pauses of the machine's scheduler could decide it. The rounds'
// median then discards a round that one long pause spoiled (pooling every round's answers would not).
const MIXED_SPAN = 2;
// Its write loads: creates arriving at these shares of the create throughput measured in the same
// run, from a generator that yields the CPU to the server and to the reads' generator (open-loop.ts).
const WRITE_LOAD_SHARES = [0.25, 0.5] as const;
// The goal is scored at a quarter. At half, the open-loop writes' own p99 reaches 20–100 ms, and on
// PostgreSQL the bare-INSERT baseline's reads missed the goal in 6 of 9 runs (1.5–5.0× alone): on two
// cores shared by the server, PostgreSQL and both generators, that load measures the machine more
// than the write path. Half is still measured and printed, with its ratio to the bare baseline.
const SCORED_SHARE = 0.25;
const WRITE_LOAD_NICE = 10;
// Time for a load generator's process to start; the writes then run this long before and after the reads.
const CHILD_START_MS = 1000;
const LEAD_MS = 500;
const WIDTHS = [10, 34, 9, 8, 8, 12];

async function startChild(target: string, schema?: string) {
  const child = spawn(
    process.execPath,
    [new URL('./serve-checkout.ts', import.meta.url).pathname, target, ...(schema ? [schema] : [])],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    if (!child.stdout) return reject(new Error('no stdout'));
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`checkout bench server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { colonyUrl: string; bareUrl: string; dbFile: string }) };
}

/** A second server process on the same database engine, for as long as `use` runs. */
async function withSecondServer<T>(
  target: string,
  schema: string | undefined,
  use: (urls: { colonyUrl: string; bareUrl: string }) => Promise<T>,
): Promise<T> {
  const { child, colonyUrl, bareUrl } = await startChild(target, schema);
  try {
    return await use({ colonyUrl, bareUrl });
  } finally {
    child.kill('SIGTERM');
  }
}

const print = (db: string, label: string, f: Figures, ratio: string) =>
  console.log(formatRow([db, label, f.rps.toFixed(0), f.p50.toFixed(1), f.p99.toFixed(1), ratio], WIDTHS));

/** Sessions and idempotency records grown to `rows`, then creates at the bench's connections. */
async function atRows(db: string, seeder: SqlDriver, create: Op, rows: number, opts: Options) {
  const ms = await seedCheckoutRows(seeder, rows);
  const f = await run(create, opts);
  print(db, `create at ${rows.toLocaleString('en')} rows (seeded in ${(ms / 1000).toFixed(1)} s)`, f, '');
}

/**
 * Where a mixed run's write load goes. The reads always go to the first server; the four placements
 * split what writes cost them into the machine's part and the reading process's part:
 * - `bareElsewhere`: the bare route's INSERTs on a second server process on this machine (SQLite: a
 *   database file of its own; PostgreSQL: the same database, as a second replica would). The cheapest
 *   write, none of it on the reading process: what the machine alone (its CPUs, its kernel, the load
 *   generator) costs reads at this rate;
 * - `createsElsewhere`: the creates on that second server: the machine's part of what creates cost;
 * - `bareHere`: the bare INSERTs in the reading process: the simplest write on its event loop;
 * - `createsHere`: the creates in the reading process, the scored figure.
 */
const PLACEMENTS = ['bareElsewhere', 'createsElsewhere', 'bareHere', 'createsHere'] as const;
type Placement = (typeof PLACEMENTS)[number];

/** The mixed run at one write load. */
interface AtShare {
  share: number;
  rate: number;
  /** The creates the scored reads ran beside. */
  creates: Figures;
  /** Reads beside each placement of the write load. */
  reads: Record<Placement, Figures>;
}

interface Mixed {
  alone: Figures;
  shares: AtShare[];
  /** Reads beside creates on every connection as fast as answers come: the CPU saturated. */
  flatOut: Figures;
}

interface MixedUrls {
  colonyUrl: string;
  bareUrl: string;
  elsewhere: { colonyUrl: string; bareUrl: string };
}

const targetOf = ({ colonyUrl, bareUrl, elsewhere }: MixedUrls, placement: Placement) =>
  ({
    bareElsewhere: { origin: elsewhere.bareUrl, path: '/bare' },
    createsElsewhere: { origin: elsewhere.colonyUrl, path: '/checkout_sessions' },
    bareHere: { origin: bareUrl, path: '/bare' },
    createsHere: { origin: colonyUrl, path: '/checkout_sessions' },
  })[placement];

/**
 * Reads at a fixed rate alone, during writes at a fixed rate in each placement, and during creates
 * flat out, in rounds with medians. Each load generator runs in a process of its own and starts on a
 * shared clock, so neither load's latency includes the other generator's work, and the reads run
 * wholly inside the writes.
 */
async function readsDuringCreates(
  urls: MixedUrls,
  ids: readonly string[],
  runId: string,
  flatOut: Op,
  capacity: number,
  opts: Options,
): Promise<Mixed> {
  const seconds = opts.seconds * MIXED_SPAN;
  const reads = (startAt: number): LoadSpec => ({
    origin: urls.colonyUrl,
    method: 'GET',
    paths: ids.map((id) => `/checkout_sessions/${id}`),
    rate: READ_RATE,
    seconds,
    connections: READ_CONNECTIONS,
    startAt,
  });
  const loads = WRITE_LOAD_SHARES.map((share) => ({
    share,
    rate: Math.round(capacity * share),
    creates: [] as Figures[],
    reads: Object.fromEntries(PLACEMENTS.map((p) => [p, [] as Figures[]])) as Record<Placement, Figures[]>,
  }));
  const alone: Figures[] = [];
  const flat: Figures[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    alone.push(await openLoopInChild(reads(Date.now() + CHILD_START_MS)));
    for (const load of loads) {
      // The placements take turns at going first, as the other rounds' targets do.
      for (let i = 0; i < PLACEMENTS.length; i++) {
        const placement = PLACEMENTS[(round + i) % PLACEMENTS.length] as Placement;
        const { origin, path } = targetOf(urls, placement);
        const startAt = Date.now() + CHILD_START_MS;
        const [beside, writes] = await Promise.all([
          openLoopInChild(reads(startAt + LEAD_MS)),
          openLoopInChild({
            origin,
            method: 'POST',
            paths: [path],
            body: CREATE_BODY,
            headers: JSON_HEADERS,
            idempotencyKeyPrefix: `${runId}-${placement}-${load.share}-${round}`,
            rate: load.rate,
            seconds: seconds + (2 * LEAD_MS) / 1000,
            connections: opts.connections,
            startAt,
            nice: WRITE_LOAD_NICE,
          }),
        ]);
        load.reads[placement].push(beside);
        if (placement === 'createsHere') load.creates.push(writes);
      }
    }
    const [during] = await Promise.all([
      openLoopInChild(reads(Date.now() + CHILD_START_MS + LEAD_MS)),
      run(flatOut, { ...opts, seconds: seconds + (CHILD_START_MS + 2 * LEAD_MS) / 1000 }),
    ]);
    flat.push(during);
  }
  return {
    alone: medians(alone),
    shares: loads.map(({ share, rate, creates, reads: beside }) => ({
      share,
      rate,
      creates: medians(creates),
      reads: Object.fromEntries(PLACEMENTS.map((p) => [p, medians(beside[p])])) as Record<Placement, Figures>,
    })),
    flatOut: medians(flat),
  };
}

function printMixed(db: string, { alone, shares, flatOut }: Mixed) {
  const vsAlone = (f: Figures) => (f.p99 / alone.p99).toFixed(2);
  print(db, `reads at ${READ_RATE}/s alone`, alone, '');
  for (const { share, rate, creates, reads } of shares) {
    print(db, `writes at ${rate}/s, ${share} of capacity`, creates, '');
    const { bareElsewhere, createsElsewhere, bareHere, createsHere } = reads;
    print(db, '  reads, INSERTs in other process', bareElsewhere, vsAlone(bareElsewhere));
    print(db, '  reads, creates in other process', createsElsewhere, vsAlone(createsElsewhere));
    print(db, '  reads during bare INSERTs', bareHere, vsAlone(bareHere));
    const vs = (f: Figures) => (createsHere.p99 / f.p99).toFixed(2);
    print(
      db,
      '  reads during ACP creates',
      createsHere,
      `${vsAlone(createsHere)}; ${vs(bareHere)}× bare, ${vs(createsElsewhere)}× other`,
    );
  }
  print(db, `reads during creates flat out`, flatOut, vsAlone(flatOut));
}

async function benchDatabase(
  db: 'sqlite' | 'postgres',
  target: string,
  opts: Options,
  schema?: string,
): Promise<GoalRow[]> {
  const { child, colonyUrl, bareUrl, dbFile } = await startChild(target, schema);
  const seeder: SqlDriver =
    db === 'sqlite'
      ? new SqliteDriver(dbFile)
      : new PostgresDriver({ url: target, ...(schema ? { schema } : {}) });
  try {
    const ids = await existingSessions(colonyUrl, 200);
    const runId = randomBytes(4).toString('hex');
    const ops = checkoutOps(colonyUrl, bareUrl, runId, ids);
    // Warm-up, discarded: the first seconds measure the JIT.
    for (const op of Object.values(ops)) await run(op, { ...opts, seconds: 1 });
    await atRows(db, seeder, ops.create, 10_000, opts);

    const runs: Record<'bare' | 'create' | 'complete', Figures[]> = { bare: [], create: [], complete: [] };
    for (let round = 0; round < opts.rounds; round++) {
      const order =
        round % 2 ? (['bare', 'create', 'complete'] as const) : (['complete', 'create', 'bare'] as const);
      for (const name of order) runs[name].push(await run(ops[name], opts));
    }
    const bare = medians(runs.bare);
    const create = medians(runs.create);
    print(db, 'bare INSERT', bare, '1.00');
    const vsBefore = db === 'sqlite' ? `, ${(create.rps / SQLITE_BEFORE_RPS).toFixed(1)}× 142` : '';
    print(db, 'ACP create (idem. key)', create, `${(create.rps / bare.rps).toFixed(2)}${vsBefore}`);
    const complete = medians(runs.complete);
    print(db, 'ACP complete', complete, (complete.rps / bare.rps).toFixed(2));

    for (const connections of SCALE_CONNECTIONS.filter((c) => c !== opts.connections)) {
      print(db, `create, ${connections} connection(s)`, await run(ops.create, { ...opts, connections }), '');
    }

    const mixed = await withSecondServer(target, schema, async (elsewhere) => {
      // Its warm-up, as the first server's above.
      const elsewhereOps = checkoutOps(elsewhere.colonyUrl, elsewhere.bareUrl, runId, ids);
      for (const op of [elsewhereOps.create, elsewhereOps.bare]) await run(op, { ...opts, seconds: 1 });
      const urls = { colonyUrl, bareUrl, elsewhere };
      return readsDuringCreates(urls, ids, runId, ops.create, create.rps, opts);
    });
    printMixed(db, mixed);
    const { alone } = mixed;
    const scored = mixed.shares.find((s) => s.share === SCORED_SHARE) as AtShare;

    const large = Number(process.env.BENCH_CHECKOUT_ROWS ?? 1_000_000);
    await atRows(db, seeder, ops.create, large, opts);

    const label = db === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    const readsBeside = atMost(
      `${label}: read p99 during creates at ${SCORED_SHARE} of capacity / alone`,
      scored.reads.createsHere.p99 / alone.p99,
      2,
      '×',
    );
    if (db === 'postgres')
      return [
        atLeast(`${label}: ACP create / bare INSERT`, create.rps / bare.rps, 0.8, '× bare INSERT'),
        readsBeside,
      ];
    return [
      atLeast(
        `${label}: ACP create, ${opts.connections} connections`,
        create.rps,
        SQLITE_BEFORE_RPS * 10,
        'req/s',
      ),
      atMost(`${label}: ACP create p99, ${opts.connections} connections`, create.p99, 50, 'ms'),
      readsBeside,
    ];
  } finally {
    await seeder.close();
    child.kill('SIGTERM');
  }
}

export async function benchCheckout(opts: Options): Promise<GoalRow[]> {
  console.log(
    `\n## ACP checkout (${opts.connections} connections unless said, ${opts.rounds} x ${opts.seconds}s per target, alternating, medians)\n`,
  );
  console.log(formatRow(['database', 'target', 'req/s', 'p50 ms', 'p99 ms', 'ratio'], WIDTHS));
  const databases = (process.env.BENCH_CHECKOUT_DATABASES ?? 'sqlite,postgres').split(',');
  const rows = databases.includes('sqlite') ? await benchDatabase('sqlite', 'sqlite', opts) : [];
  if (!databases.includes('postgres')) return rows;
  const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) {
    console.log('postgres   skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL');
    return rows;
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    rows.push(...(await benchDatabase('postgres', url, opts, schema)));
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  console.log(
    '\nThe ratio is against one bare INSERT per request through the same driver; an ACP create with a key is an idempotency claim, then the session and its stored response in one transaction (PostgreSQL: one statement, shared by the creates that arrive together).',
  );
  console.log(
    `The mixed run's reads and writes are open-loop loads from processes of their own (open-loop.ts), the writes at ${WRITE_LOAD_SHARES.join(' and ')} of the create throughput measured above and at nice ${WRITE_LOAD_NICE}. The same write load goes four ways: to a second Colony server process on this machine, as bare INSERTs and as creates ("in other process": the reading process does none of the write work, so this is what the writes cost reads through the machine alone, its CPUs, kernel and load generator), then to the reading process itself, as bare INSERTs (the simplest write on its event loop) and as creates (the scored figure, with its ratios to the bare row and to the creates in the other process). The goal is scored at ${SCORED_SHARE} (docs/decisions.md says why); the higher load is reported, not scored. Each mixed figure is the median of ${opts.rounds} rounds of ${opts.seconds * MIXED_SPAN} s (${READ_RATE * opts.seconds * MIXED_SPAN} reads a round). "Flat out" is the autocannon create load above, which saturates the CPU (reported, not a goal).`,
  );
  return rows;
}
