// PostgreSQL driver on node-postgres, used when DATABASE_URL is set.
import pg from 'pg';
import { type SqlDriver, type SqlExecutor, type SqlValue, UniqueViolationError } from './sql-driver.ts';

// Epoch-millisecond columns are BIGINT; they fit a JS number, so read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

const UNIQUE_VIOLATION = '23505';

function translate(err: unknown): unknown {
  if (err && typeof err === 'object' && (err as { code?: string }).code === UNIQUE_VIOLATION) {
    return new UniqueViolationError((err as Error).message);
  }
  return err;
}

export interface PostgresDriverOptions {
  url: string;
  /** A schema to use as search_path (tests isolate themselves this way). */
  schema?: string;
  maxConnections?: number;
  /** How long a query may wait for a connection (a new one, or a free one of the pool) before failing. */
  connectTimeoutMs?: number;
}

// A database that is down, unreachable or saturated fails a request within this, instead of hanging it.
const CONNECT_TIMEOUT_MS = 5_000;

export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(opts: PostgresDriverOptions) {
    this.pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.maxConnections ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      keepAlive: true,
      ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
  }

  async query<T = Record<string, unknown>>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    try {
      const res = await this.pool.query(sql, params as unknown[]);
      return res.rows as T[];
    } catch (err) {
      throw translate(err);
    }
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx: SqlExecutor = {
      dialect: 'postgres',
      query: async <R>(sql: string, params: readonly SqlValue[] = []) => {
        try {
          return (await client.query(sql, params as unknown[])).rows as R[];
        } catch (err) {
          throw translate(err);
        }
      },
    };
    try {
      await client.query('BEGIN');
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
