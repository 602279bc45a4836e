// Opens the configured database (embedded SQLite or PostgreSQL), migrates it and builds on it the
// repositories a layout names; which repositories and migrations exist is the application's choice.
import { type Migration, migrate } from './migration-runner.ts';
import { PostgresDriver } from './postgres-driver.ts';
import type { Dialect, SqlDriver } from './sql-driver.ts';
import { SqliteDriver } from './sqlite-driver.ts';

export type StorageTarget =
  | { kind: 'sqlite'; file: string }
  | {
      kind: 'postgres';
      url: string;
      schema?: string;
      maxConnections?: number;
      /** How long a query waits for a connection; the driver's default (5 s) unless a test shortens it. */
      connectTimeoutMs?: number;
      /** Named statements prepared per connection (postgres-driver.ts); on unless set false. */
      preparedStatements?: boolean;
    };

/** What every opened database offers besides its repositories. */
export interface StorageHandle {
  readonly kind: Dialect;
  /** Round-trips to the database; resolves with the latency in milliseconds. */
  ping(): Promise<number>;
  close(): Promise<void>;
}

export interface StorageLayout<R> {
  /** Applied in this order, each once: their ids are recorded in the database. */
  migrations: readonly Migration[];
  repositories(driver: SqlDriver): R;
}

function openDriver(target: StorageTarget): SqlDriver {
  if (target.kind === 'sqlite') return new SqliteDriver(target.file);
  return new PostgresDriver({
    url: target.url,
    ...(target.schema ? { schema: target.schema } : {}),
    ...(target.maxConnections ? { maxConnections: target.maxConnections } : {}),
    ...(target.connectTimeoutMs ? { connectTimeoutMs: target.connectTimeoutMs } : {}),
    ...(target.preparedStatements === undefined ? {} : { preparedStatements: target.preparedStatements }),
  });
}

export async function openDatabase<R extends object>(
  target: StorageTarget,
  layout: StorageLayout<R>,
): Promise<R & StorageHandle> {
  const driver = openDriver(target);
  try {
    await migrate(driver, layout.migrations);
  } catch (err) {
    await driver.close();
    throw err;
  }
  return {
    ...layout.repositories(driver),
    kind: driver.dialect,
    async ping() {
      const started = performance.now();
      await driver.query('SELECT 1');
      return performance.now() - started;
    },
    close: () => driver.close(),
  };
}
