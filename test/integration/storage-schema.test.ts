// Every migration applied to a fresh SQLite file and a fresh PostgreSQL schema ends in the schema the
// snapshots record (tables, columns, types, constraints, indexes, migration ids), so moving or
// rewriting migrations can never change what an existing database upgrades to.
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../api/app-storage.ts';
import type { StorageTarget } from '../../api/storage/open-database.ts';
import { postgresTarget, sqliteTarget } from '../support/storage-targets.ts';

// Whitespace in stored DDL follows the source's indentation, which says nothing about the schema.
const squash = (sql: string | null): string | null =>
  sql === null ? null : sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();

function sqliteSchema(file: string): unknown {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const all = (sql: string) => db.prepare(sql).all() as Record<string, unknown>[];
    const objects = all(
      `SELECT type, name, tbl_name AS tableName, sql FROM sqlite_master
       WHERE name <> 'sqlite_sequence' ORDER BY type, name`,
    );
    const tables = objects.filter((o) => o.type === 'table').map((o) => String(o.name));
    return {
      objects: objects.map((o) => ({ ...o, sql: squash(o.sql as string | null) })),
      tables: Object.fromEntries(
        tables.map((t) => [
          t,
          {
            columns: all(`PRAGMA table_xinfo("${t}")`),
            foreignKeys: all(`PRAGMA foreign_key_list("${t}")`),
            indexes: all(`PRAGMA index_list("${t}")`)
              .sort((a, b) => String(a.name).localeCompare(String(b.name)))
              .map((i) => ({ ...i, columns: all(`PRAGMA index_info("${String(i.name)}")`) })),
          },
        ]),
      ),
      migrations: all('SELECT id, name FROM schema_migrations ORDER BY id'),
    };
  } finally {
    db.close();
  }
}

async function postgresSchema(url: string, schema: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const rows = async (sql: string, params: string[] = [schema]) =>
      JSON.parse(JSON.stringify((await client.query(sql, params)).rows).replaceAll(`${schema}.`, ''));
    return {
      columns: await rows(
        `SELECT table_name, column_name, ordinal_position, data_type, udt_name, is_nullable, column_default,
                is_generated, generation_expression
         FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
      ),
      constraints: await rows(
        `SELECT c.relname AS table_name, k.conname, k.contype, pg_get_constraintdef(k.oid) AS definition
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
         WHERE k.connamespace = $1::regnamespace ORDER BY c.relname, k.conname`,
      ),
      indexes: await rows(
        'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY tablename, indexname',
      ),
      migrations: await rows('SELECT id, name FROM schema_migrations ORDER BY id', []),
    };
  } finally {
    await client.end();
  }
}

async function migrated<T>(
  made: { target: StorageTarget; dispose(): Promise<void> },
  read: (target: StorageTarget) => Promise<T> | T,
): Promise<T> {
  try {
    const storage = await openStorage(made.target);
    await storage.close();
    return await read(made.target);
  } finally {
    await made.dispose();
  }
}

describe('the migrated schema', () => {
  it('is the recorded one on SQLite', async () => {
    const schema = await migrated(await sqliteTarget.create(), (t) =>
      sqliteSchema(t.kind === 'sqlite' ? t.file : ''),
    );
    await expect(`${JSON.stringify(schema, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/storage-schema.sqlite.json',
    );
  });

  it('is the recorded one on PostgreSQL', async () => {
    const schema = await migrated(await postgresTarget.create(), (t) =>
      t.kind === 'postgres' ? postgresSchema(t.url, t.schema ?? 'public') : undefined,
    );
    await expect(`${JSON.stringify(schema, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/storage-schema.postgres.json',
    );
  });
});
