// Backups benchmark: snapshot part 2 (the office database dump the snapshot job runs: COPY … TO
// STDOUT of every user table into the filesystem blob store, manifest included) on an office
// database of ~50 MB made here, against a bare COPY … TO STDOUT of the same tables, drained and
// discarded, in the same run. Reported: time and MB/s of each, and the ratio. Target: within 1.5x.
// With KUBECONFIG, also a whole snapshot and a database restore through the API.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { KubeConfig } from '@kubernetes/client-node';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { FilesystemBlobStore } from '../../api/backups/blob-store.ts';
import { captureOfficeDatabase } from '../../api/backups/office-database.ts';
import {
  copyOutSql,
  databaseUrl,
  LIST_COLUMNS,
  LIST_TABLES,
  officeDatabaseName,
} from '../../api/backups/render-database.ts';
import { endToEnd } from './backups-end-to-end.ts';
import { atMost, type BenchOutcome } from './goals.ts';

export interface BackupsBenchOptions {
  megabytes: number;
  rounds: number;
}

const TARGET_RATIO = 1.5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Three integration-like tables: JSON events, text notes, and a wide numeric table. */
async function populate(url: string, megabytes: number): Promise<number> {
  return withClient(url, async (c) => {
    const rows = Math.round((megabytes * 1_000_000) / 3 / 200);
    await c.query(`
      CREATE SCHEMA integ_bench;
      CREATE TABLE integ_bench.events (id bigserial PRIMARY KEY, at timestamptz NOT NULL, kind text, payload jsonb);
      CREATE TABLE integ_bench.notes (id bigserial PRIMARY KEY, title text, body text);
      CREATE TABLE public.metrics (id bigserial PRIMARY KEY, a float8, b float8, c bigint, d numeric, label text)`);
    await c.query(
      `INSERT INTO integ_bench.events (at, kind, payload)
       SELECT now() - g * interval '1 second', 'kind-' || (g % 17),
              jsonb_build_object('n', g, 'h', md5(g::text), 'tags', jsonb_build_array(md5((g+1)::text), md5((g+2)::text)))
       FROM generate_series(1, $1) g`,
      [rows],
    );
    await c.query(
      `INSERT INTO integ_bench.notes (title, body)
       SELECT 'note ' || g, repeat(md5(g::text), 5) FROM generate_series(1, $1) g`,
      [rows],
    );
    await c.query(
      `INSERT INTO public.metrics (a, b, c, d, label)
       SELECT random(), random() * g, g * 7919, g / 3.0, md5(g::text) || md5((g * 3)::text) || md5((g * 5)::text)
       FROM generate_series(1, $1) g`,
      [rows],
    );
    const { rows: size } = await c.query<{ bytes: string }>(
      "SELECT sum(pg_relation_size(c.oid))::int8 AS bytes FROM pg_class c WHERE c.relname IN ('events', 'notes', 'metrics')",
    );
    return Number(size[0]?.bytes ?? 0);
  });
}

/** The baseline: each table's COPY … TO STDOUT on one connection, bytes counted and discarded. */
async function bareCopy(url: string): Promise<number> {
  return withClient(url, async (c) => {
    let bytes = 0;
    const tables = (await c.query<{ schema: string; name: string; oid: string }>(LIST_TABLES)).rows;
    for (const t of tables) {
      const columns = (await c.query<{ name: string; type: string }>(LIST_COLUMNS, [t.oid])).rows;
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          done();
        },
      });
      await pipeline(c.query(copyTo(copyOutSql({ ...t, columns }))), sink);
    }
    return bytes;
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

export async function benchBackups(opts: BackupsBenchOptions): Promise<BenchOutcome> {
  const adminUrl =
    process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  console.log('\n# backups: office database snapshot vs bare COPY TO STDOUT');
  if (!adminUrl) {
    console.log('skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL admin URL');
    return 'skipped';
  }
  const officeId = `bench-${randomBytes(4).toString('hex')}`;
  const database = officeDatabaseName(officeId);
  const dir = mkdtempSync(join(tmpdir(), 'colony-backups-bench-'));
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${database}`));
  try {
    const url = databaseUrl(adminUrl, database);
    const heap = await populate(url, opts.megabytes);
    await bareCopy(url); // warm the cache so neither side pays for the first read from disk
    const blobs = new FilesystemBlobStore(dir);
    const ours: number[] = [];
    const bare: number[] = [];
    let dumped = 0;
    let copied = 0;
    for (let i = 0; i < opts.rounds; i++) {
      const b = await timed(() => bareCopy(url));
      bare.push(b.ms);
      copied = b.value;
      const snapshotId = `snap_${randomBytes(12).toString('hex')}`;
      const o = await timed(() => captureOfficeDatabase({ adminUrl, officeId, snapshotId, blobs }));
      ours.push(o.ms);
      dumped = o.value.bytes;
      await blobs.remove(snapshotId);
    }
    const mb = (bytes: number) => bytes / 1_000_000;
    const oursMs = median(ours);
    const bareMs = median(bare);
    const ratio = oursMs / bareMs;
    console.log(
      `table data on disk: ${mb(heap).toFixed(1)} MB; COPY text: ${mb(copied).toFixed(1)} MB; dumped ${mb(dumped).toFixed(1)} MB`,
    );
    console.log(
      `snapshot (database part): median ${oursMs.toFixed(0)} ms over ${opts.rounds} rounds, ${(mb(dumped) / (oursMs / 1000)).toFixed(1)} MB/s`,
    );
    console.log(
      `bare COPY TO STDOUT:      median ${bareMs.toFixed(0)} ms over ${opts.rounds} rounds, ${(mb(copied) / (bareMs / 1000)).toFixed(1)} MB/s`,
    );
    console.log(`ratio snapshot / bare COPY: ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x)`);
    const kubeconfig = process.env.KUBECONFIG;
    if (kubeconfig) {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const e2e = await endToEnd({ kc, kubeconfig, officeId, adminUrl, dataDir: join(dir, 'e2e') });
      console.log(
        `end to end through the API (${e2e.status}): snapshot ${e2e.snapshotMs.toFixed(0)} ms request to completed (${(mb(dumped) / (e2e.snapshotMs / 1000)).toFixed(1)} MB/s; the job itself ${e2e.workMs} ms), database restore ${e2e.restoreMs.toFixed(0)} ms`,
      );
    } else console.log('end to end through the API: skipped (no KUBECONFIG)');
    return [atMost('office database snapshot', ratio, TARGET_RATIO, '× bare COPY time')];
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}
