// Part 2 of a snapshot against the real PostgreSQL: an office database made here, dumped with
// COPY … TO STDOUT into the blob store and loaded back in one transaction, refused when the schema moved.

import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../api/backups/blob-store.ts';
import { dumpDatabase } from '../../api/backups/office-database.ts';
import { officeDatabaseName } from '../../api/backups/render-database.ts';
import {
  BOOTSTRAP,
  bearer,
  createOffice,
  settled,
  startBackupsServer,
  type TestOffice,
} from '../support/backups-office.ts';
import { eventually } from '../support/eventually.ts';
import type { TestServer } from '../support/server.ts';
import { postgresUrl, withPostgresAdmin } from '../support/storage-targets.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>;
let s: TestServer;
let office: TestOffice;
let db: pg.Client;
let database: string;
const auth = bearer(BOOTSTRAP);

const admin = withPostgresAdmin;

const SCHEMA = `
  CREATE SCHEMA integ_notes;
  CREATE TABLE integ_notes.notes (
    id serial PRIMARY KEY, body text, tags text[], meta jsonb, created timestamptz, data bytea,
    body_len int GENERATED ALWAYS AS (length(body)) STORED);
  CREATE TABLE integ_notes.comments (
    id serial PRIMARY KEY, note_id int NOT NULL REFERENCES integ_notes.notes (id), body text);
  CREATE TABLE public.kv (k text PRIMARY KEY, v text);
  INSERT INTO integ_notes.notes (body, tags, meta, created, data) VALUES
    ('first', '{a,b}', '{"x": 1}', '2026-11-23T10:00:00Z', '\\x00ff'),
    (E'tab\\there\\nnewline \\\\ backslash', '{}', 'null', NULL, NULL),
    ('ünïcödé ✓', NULL, '{"nested": {"y": [1, 2]}}', '2026-01-01T00:00:00Z', '\\x');
  INSERT INTO integ_notes.comments (note_id, body) VALUES (1, 'on first'), (1, 'again'), (3, NULL);
  INSERT INTO public.kv SELECT 'k' || g, repeat('v', g) FROM generate_series(1, 500) g;`;

const contents = async () => ({
  notes: (await db.query('SELECT * FROM integ_notes.notes ORDER BY id')).rows,
  comments: (await db.query('SELECT * FROM integ_notes.comments ORDER BY id')).rows,
  kv: (
    await db.query("SELECT count(*)::int AS n, md5(string_agg(k || v, ',' ORDER BY k)) AS h FROM public.kv")
  ).rows,
});

const snapshot = async (): Promise<Body> => {
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/snapshots',
    headers: auth,
    payload: { office: office.id },
  });
  return settled(s, `/api/snapshots/${res.json().id}`);
};
const restoreDatabase = async (id: string): Promise<Body> => {
  const res = await s.app.inject({
    method: 'POST',
    url: `/api/snapshots/${id}/restore`,
    headers: auth,
    payload: { parts: ['database'] },
  });
  expect(res.statusCode).toBe(202);
  return settled(s, new URL(res.headers.location as string).pathname);
};

beforeAll(async () => {
  office = await createOffice('bkd');
  database = officeDatabaseName(office.id);
  await admin((c) => c.query(`CREATE DATABASE ${database}`));
  const url = new URL(postgresUrl());
  url.pathname = `/${database}`;
  db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  await db.query(SCHEMA);
  s = await startBackupsServer({ COLONY_OFFICE_DATABASE_URL: postgresUrl() });
});
afterAll(async () => {
  await s?.close();
  await db?.end();
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  await office?.dispose();
});

describe('snapshot part 2: the office database', () => {
  let snap: Body;
  let before: Awaited<ReturnType<typeof contents>>;
  beforeAll(async () => {
    before = await contents();
    snap = await snapshot();
  });

  it('dumps every user table of every non-system schema', async () => {
    expect(snap.status).toBe('completed');
    expect(snap.parts.database).toMatchObject({ status: 'completed', database, tables: 3, rows: 506 });
    expect(snap.parts.database.bytes).toBeGreaterThan(1000);
    expect(snap.sizeBytes).toBeGreaterThanOrEqual(snap.parts.database.bytes);
  });

  it('loads the dump back exactly, in foreign-key order, with sequences where they were', async () => {
    await db.query(`DELETE FROM integ_notes.comments WHERE id = 1;
      UPDATE integ_notes.notes SET body = 'edited', tags = '{z}' WHERE id = 2;
      INSERT INTO integ_notes.notes (body) VALUES ('added after');
      DELETE FROM public.kv WHERE k LIKE 'k1%';`);
    expect(await contents()).not.toEqual(before);
    const done = await restoreDatabase(snap.id);
    expect(done.status).toBe('completed');
    expect(done.report.database).toEqual({ status: 'completed', tables: 3, rows: 506 });
    expect(await contents()).toEqual(before);
    const next = await db.query("INSERT INTO integ_notes.notes (body) VALUES ('new') RETURNING id, body_len");
    expect(next.rows[0]).toEqual({ id: 4, body_len: 3 });
  });

  it('refuses a restore when the schema no longer matches, changing nothing', async () => {
    await db.query(
      'ALTER TABLE integ_notes.notes ADD COLUMN extra int; ALTER TABLE public.kv ALTER COLUMN v TYPE varchar(900)',
    );
    const marker = await db.query("INSERT INTO public.kv VALUES ('marker', 'kept') RETURNING k");
    expect(marker.rowCount).toBe(1);
    const done = await restoreDatabase(snap.id);
    expect(done.status).toBe('failed');
    expect(done.report.database.detail).toContain('integ_notes.notes.extra is new (integer)');
    expect(done.report.database.detail).toContain('public.kv.v is now character varying(900), was text');
    expect(done.report.database.detail).toContain('Nothing was changed');
    expect((await db.query("SELECT v FROM public.kv WHERE k = 'marker'")).rows).toEqual([{ v: 'kept' }]);
    await db.query(
      'ALTER TABLE integ_notes.notes DROP COLUMN extra; ALTER TABLE public.kv ALTER COLUMN v TYPE text',
    );
  });

  it('stops a dump when the job runner stops, leaving no connection behind', async () => {
    const url = new URL(postgresUrl());
    url.pathname = `/${database}`;
    const blobs = new FilesystemBlobStore(join(s.dataDir, 'aborted'));
    for (const after of [0, 5, 15, 30]) {
      const stop = new AbortController();
      const dumping = dumpDatabase(url.toString(), blobs, `x${after}`, stop.signal);
      setTimeout(() => stop.abort(), after);
      // Either it finished before the abort landed, or it stopped with an error; it never hangs.
      await dumping.catch(() => undefined);
    }
    const stopped = new AbortController();
    stopped.abort();
    await expect(dumpDatabase(url.toString(), blobs, 'y', stopped.signal)).rejects.toThrow(/abort/i);
    const open = async () =>
      Number(
        (
          await db.query(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'colony-backups' AND datname = $1",
            [database],
          )
        ).rows[0].count,
      );
    await eventually(async () => (await open()) === 0);
  });

  it('refuses when a dumped table was dropped', async () => {
    await db.query('ALTER TABLE public.kv RENAME TO kv_old');
    const done = await restoreDatabase(snap.id);
    expect(done.report.database.detail).toContain('table public.kv no longer exists');
    await db.query('ALTER TABLE public.kv_old RENAME TO kv');
  });
});
