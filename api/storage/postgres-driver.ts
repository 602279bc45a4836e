// PostgreSQL driver on node-postgres, used when DATABASE_URL is set.
import pg from 'pg';
import { listenOn } from './postgres-listener.ts';
import {
  DatabaseUnavailableError,
  type Listening,
  type SqlDriver,
  type SqlExecutor,
  type SqlValue,
  type Statement,
  UniqueViolationError,
} from './sql-driver.ts';

// Epoch-millisecond columns are BIGINT; they fit a JS number, so read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

const UNIQUE_VIOLATION = '23505';

// SQLSTATEs that say the server cannot serve now: class 08 (connection exception), 53300 (too many
// connections), 57P01–57P03 (admin or crash shutdown, cannot connect now).
const UNAVAILABLE_SQLSTATE = /^(08...|53300|57P0[123])$/;
// Socket failures Node reports by code.
const UNAVAILABLE_SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
// node-postgres' own messages for a pool or connect timeout and a dropped connection.
const UNAVAILABLE_MESSAGE = /timeout exceeded when trying to connect|connection terminated|not queryable/i;

/** Whether a failure is the database being unreachable rather than the statement being wrong. */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code))) {
    return true;
  }
  if (err instanceof AggregateError) return err.errors.some(isUnavailable);
  return UNAVAILABLE_MESSAGE.test(err.message);
}

function translate(err: unknown): unknown {
  if (err && typeof err === 'object' && (err as { code?: string }).code === UNIQUE_VIOLATION) {
    return new UniqueViolationError((err as Error).message);
  }
  if (isUnavailable(err)) return new DatabaseUnavailableError(err);
  return err;
}

export interface PostgresDriverOptions {
  url: string;
  /** A schema to use as search_path (tests isolate themselves this way). */
  schema?: string;
  maxConnections?: number;
  /** How long a query may wait for a connection (a new one, or a free one of the pool) before failing. */
  connectTimeoutMs?: number;
  /**
   * Whether named statements (sql-driver.ts) are prepared on each connection (the default). Off, they
   * are sent like any other: for a pooler that cannot track prepared statements (PgBouncer before
   * 1.21 in transaction mode, or with max_prepared_statements = 0).
   */
  preparedStatements?: boolean;
}

// A database that is down, unreachable or saturated fails a request within this, instead of hanging it.
const CONNECT_TIMEOUT_MS = 5_000;

export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  /** What the pool's connections use, for the LISTEN connections too. */
  private readonly client: pg.ClientConfig;
  private readonly listening = new Set<Listening>();
  private readonly prepare: boolean;

  constructor(opts: PostgresDriverOptions) {
    this.prepare = opts.preparedStatements ?? true;
    this.client = {
      connectionString: opts.url,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      keepAlive: true,
      ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
    };
    this.pool = new pg.Pool({ ...this.client, max: opts.maxConnections ?? 10 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
  }

  listen(channel: string, onPayload: (payload: string) => void, onReady: () => void): Listening {
    const inner = listenOn(this.client, channel, onPayload, onReady);
    const handle: Listening = {
      close: async () => {
        this.listening.delete(handle);
        await inner.close();
      },
    };
    this.listening.add(handle);
    return handle;
  }

  /** What node-postgres is given: a named statement's name makes it prepare the text once per connection. */
  private config(sql: Statement, params: readonly SqlValue[]): pg.QueryConfig {
    const values = params as unknown[];
    if (typeof sql === 'string') return { text: sql, values };
    return this.prepare ? { name: sql.name, text: sql.text, values } : { text: sql.text, values };
  }

  async query<T = Record<string, unknown>>(sql: Statement, params: readonly SqlValue[] = []): Promise<T[]> {
    try {
      const res = await this.pool.query(this.config(sql, params));
      return res.rows as T[];
    } catch (err) {
      throw translate(err);
    }
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((err: unknown) => {
      throw translate(err);
    });
    const tx: SqlExecutor = {
      dialect: 'postgres',
      query: async <R>(sql: Statement, params: readonly SqlValue[] = []) => {
        try {
          return (await client.query(this.config(sql, params))).rows as R[];
        } catch (err) {
          throw translate(err);
        }
      },
    };
    let broken = false;
    try {
      await tx.query('BEGIN');
      const result = await fn(tx);
      await tx.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      // A connection that failed is dropped from the pool rather than handed to the next query.
      broken = err instanceof DatabaseUnavailableError;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.listening].map((l) => l.close()));
    await this.pool.end();
  }
}
