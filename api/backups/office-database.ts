// Part 2 of a snapshot: the office's PostgreSQL database, every user table dumped with
// `COPY … TO STDOUT` into the blob store in one consistent read, and loaded back in one transaction.
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { type BlobStore, readBlobText } from './blob-store.ts';
import {
  copyInSql,
  copyOutSql,
  type DatabaseManifest,
  type DumpedColumn,
  type DumpedSequence,
  type DumpedTable,
  databaseUrl,
  LIST_COLUMNS,
  LIST_FOREIGN_KEYS,
  LIST_SEQUENCES,
  LIST_TABLES,
  loadOrder,
  officeDatabaseName,
  qualified,
  schemaDifferences,
} from './render-database.ts';
import type { DatabasePart, RestoreReport } from './schemas.ts';

/** A restore that must not proceed (the schema moved on); not retried. */
export class RestoreRefusedError extends Error {
  override readonly name = 'RestoreRefusedError';
}

const skipped = (database: string | null, detail: string): DatabasePart => ({
  status: 'skipped',
  database,
  tables: 0,
  rows: 0,
  bytes: 0,
  detail,
});

/**
 * A client of its own (COPY needs one connection throughout). An abort — the job runner stopping —
 * closes it, so a long dump or load ends at once: the dump's job is retried later, the load's
 * transaction is rolled back by the server.
 */
async function connect(url: string, signal?: AbortSignal): Promise<pg.Client> {
  signal?.throwIfAborted();
  const client = new pg.Client({ connectionString: url, application_name: 'colony-backups' });
  client.on('error', () => {});
  await client.connect();
  if (signal?.aborted) {
    await client.end();
    signal.throwIfAborted();
  }
  const abort = () => {
    client.end().catch(() => {});
  };
  signal?.addEventListener('abort', abort, { once: true });
  client.on('end', () => signal?.removeEventListener('abort', abort));
  return client;
}

/** True when the office's database exists on the server behind the admin URL. */
export async function officeDatabaseExists(adminUrl: string, database: string): Promise<boolean> {
  const admin = await connect(adminUrl);
  try {
    const res = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    return res.rowCount === 1;
  } finally {
    await admin.end();
  }
}

async function columnsOf(client: pg.Client, oid: string | number): Promise<DumpedColumn[]> {
  return (await client.query<DumpedColumn>(LIST_COLUMNS, [oid])).rows;
}

async function sequences(client: pg.Client): Promise<DumpedSequence[]> {
  const out: DumpedSequence[] = [];
  for (const s of (await client.query<{ schema: string; name: string }>(LIST_SEQUENCES)).rows) {
    const { rows } = await client.query<{ last_value: string; is_called: boolean }>(
      `SELECT last_value::text AS last_value, is_called FROM ${qualified(s)}`,
    );
    out.push({ ...s, lastValue: rows[0]?.last_value ?? '1', isCalled: rows[0]?.is_called ?? false });
  }
  return out;
}

/** Dumps every user table of one database (any URL) into `<prefix>/NNNN.copy` blobs plus a manifest. */
export async function dumpDatabase(
  url: string,
  blobs: BlobStore,
  prefix: string,
  signal?: AbortSignal,
): Promise<DatabaseManifest> {
  const client = await connect(url, signal);
  try {
    // One snapshot of the whole database: tables dumped later see the same moment as the first.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const listed = (await client.query<{ schema: string; name: string; oid: string }>(LIST_TABLES)).rows;
    const tables: DumpedTable[] = [];
    for (const [i, t] of listed.entries()) {
      const columns = await columnsOf(client, t.oid);
      const blob = `${prefix}/${String(i).padStart(4, '0')}.copy`;
      const stream = client.query(copyTo(copyOutSql({ ...t, columns })));
      const bytes = await blobs.put(blob, stream);
      tables.push({ schema: t.schema, name: t.name, columns, rows: stream.rowCount, bytes, blob });
    }
    const manifest: DatabaseManifest = {
      version: 1,
      database: url ? new URL(url).pathname.slice(1) : '',
      format: 'copy-text',
      tables,
      sequences: await sequences(client),
    };
    await client.query('COMMIT');
    await blobs.put(`${prefix}/manifest.json`, [JSON.stringify(manifest)]);
    return manifest;
  } finally {
    await client.end();
  }
}

export async function captureOfficeDatabase(args: {
  adminUrl: string | undefined;
  officeId: string;
  snapshotId: string;
  blobs: BlobStore;
  signal?: AbortSignal | undefined;
}): Promise<DatabasePart> {
  const database = officeDatabaseName(args.officeId);
  if (!args.adminUrl)
    return skipped(null, 'No office database server is configured (COLONY_OFFICE_DATABASE_URL).');
  if (!(await officeDatabaseExists(args.adminUrl, database)))
    return skipped(database, `The office has no database (${database} does not exist).`);
  const manifest = await dumpDatabase(
    databaseUrl(args.adminUrl, database),
    args.blobs,
    `${args.snapshotId}/database`,
    args.signal,
  );
  return {
    status: 'completed',
    database,
    tables: manifest.tables.length,
    rows: manifest.tables.reduce((n, t) => n + t.rows, 0),
    bytes: manifest.tables.reduce((n, t) => n + t.bytes, 0),
  };
}

async function liveColumns(client: pg.Client, tables: readonly DumpedTable[]) {
  const live = new Map<string, DumpedColumn[]>();
  for (const t of tables) {
    const { rows } = await client.query<{ oid: string | null }>('SELECT to_regclass($1)::oid::int8 AS oid', [
      qualified(t),
    ]);
    const oid = rows[0]?.oid;
    if (oid !== null && oid !== undefined) live.set(`${t.schema}.${t.name}`, await columnsOf(client, oid));
  }
  return live;
}

/**
 * Replaces the tables' contents with the dump in one transaction: every table is checked against
 * the dump first, and any difference refuses the whole restore with nothing changed.
 */
export async function loadDatabase(
  url: string,
  blobs: BlobStore,
  manifest: DatabaseManifest,
  signal?: AbortSignal,
): Promise<number> {
  const client = await connect(url, signal);
  try {
    await client.query('BEGIN');
    const differences = schemaDifferences(manifest.tables, await liveColumns(client, manifest.tables));
    if (differences.length > 0) {
      throw new RestoreRefusedError(
        `The database schema no longer matches the snapshot: ${differences.join('; ')}. Nothing was changed.`,
      );
    }
    if (manifest.tables.length > 0)
      await client.query(`TRUNCATE ${manifest.tables.map(qualified).join(', ')}`);
    const edges = (
      await client.query<{
        child_schema: string;
        child_name: string;
        parent_schema: string;
        parent_name: string;
      }>(LIST_FOREIGN_KEYS)
    ).rows.map((r) => ({
      child: qualified({ schema: r.child_schema, name: r.child_name }),
      parent: qualified({ schema: r.parent_schema, name: r.parent_name }),
    }));
    let rows = 0;
    for (const t of loadOrder(manifest.tables, edges)) {
      const sink = client.query(copyFrom(copyInSql(t)));
      await pipeline(await blobs.get(t.blob), sink);
      rows += sink.rowCount;
    }
    for (const s of manifest.sequences) {
      await client.query('SELECT setval($1::regclass, $2::int8, $3)', [
        qualified(s),
        s.lastValue,
        s.isCalled,
      ]);
    }
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}

export async function restoreOfficeDatabase(args: {
  adminUrl: string | undefined;
  snapshotId: string;
  blobs: BlobStore;
  signal?: AbortSignal | undefined;
}): Promise<NonNullable<RestoreReport['database']>> {
  const manifest = JSON.parse(
    await readBlobText(args.blobs, `${args.snapshotId}/database/manifest.json`),
  ) as DatabaseManifest;
  if (!args.adminUrl)
    throw new RestoreRefusedError('No office database server is configured (COLONY_OFFICE_DATABASE_URL).');
  if (!(await officeDatabaseExists(args.adminUrl, manifest.database)))
    throw new RestoreRefusedError(
      `The office database ${manifest.database} no longer exists; nothing was restored.`,
    );
  const url = databaseUrl(args.adminUrl, manifest.database);
  const rows = await loadDatabase(url, args.blobs, manifest, args.signal);
  return { status: 'completed', tables: manifest.tables.length, rows };
}
