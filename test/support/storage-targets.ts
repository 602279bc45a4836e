// The two real databases every storage test runs against: a fresh SQLite file and a fresh PostgreSQL schema.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { StorageTarget } from '../../api/storage/open-database.ts';

export interface DisposableTarget {
  name: 'sqlite' | 'postgres';
  create(): Promise<{ target: StorageTarget; dispose(): Promise<void> }>;
}

export function postgresUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set (run `make test`)');
  return url;
}

/** Runs `fn` on a connection of its own to the test PostgreSQL server, closed afterwards. */
export async function withPostgresAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: postgresUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export const sqliteTarget: DisposableTarget = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'colony-sqlite-'));
    return {
      target: { kind: 'sqlite', file: join(dir, 'colony.db') },
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};

export const postgresTarget: DisposableTarget = {
  name: 'postgres',
  async create() {
    const url = postgresUrl();
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    return {
      target: { kind: 'postgres', url, schema },
      dispose: async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP SCHEMA ${schema} CASCADE`);
        await c.end();
      },
    };
  },
};

export const storageTargets: DisposableTarget[] = [sqliteTarget, postgresTarget];
