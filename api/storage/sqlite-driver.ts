// SQLite driver on node:sqlite: the embedded default that needs no server.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import {
  DatabaseUnavailableError,
  type SqlDriver,
  type SqlExecutor,
  type SqlValue,
  UniqueViolationError,
} from './sql-driver.ts';

// SQLITE_BUSY and SQLITE_LOCKED (primary result codes): another writer held the file past busy_timeout.
const BUSY_CODES = new Set([5, 6]);

/** A lock held past busy_timeout is the database being unavailable, not the statement being wrong. */
function translate(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  if (/UNIQUE constraint failed/.test(err.message)) return new UniqueViolationError(err.message);
  const errcode = (err as { errcode?: unknown }).errcode;
  if (typeof errcode === 'number' && BUSY_CODES.has(errcode & 0xff)) return new DatabaseUnavailableError(err);
  return err;
}

// node:sqlite takes numbered parameters as ?NNN; repositories write PostgreSQL's $NNN.
const toSqliteParams = (sql: string): string => sql.replace(/\$(\d+)/g, '?$1');

function toInput(v: SqlValue): SQLInputValue {
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

/**
 * node:sqlite is synchronous, so a single statement is atomic in the event loop. A transaction
 * spans awaits, so every statement waits on one lock while a transaction is open.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  private readonly db: DatabaseSync;
  private lock: Promise<void> = Promise.resolve();
  private readonly statements = new Map<string, ReturnType<DatabaseSync['prepare']>>();

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new DatabaseSync(file);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  }

  private run<T>(sql: string, params: readonly SqlValue[]): T[] {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(toSqliteParams(sql));
      this.statements.set(sql, stmt);
    }
    try {
      return stmt.all(...params.map(toInput)) as T[];
    } catch (err) {
      throw translate(err);
    }
  }

  private executor(): SqlExecutor {
    return {
      dialect: 'sqlite',
      query: async <T>(sql: string, params: readonly SqlValue[] = []) => this.run<T>(sql, params),
    };
  }

  async query<T = Record<string, unknown>>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    await this.lock;
    return this.run<T>(sql, params);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      try {
        this.db.exec('BEGIN IMMEDIATE');
      } catch (err) {
        throw translate(err);
      }
      try {
        const result = await fn(this.executor());
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        this.db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    await this.lock;
    this.statements.clear();
    if (this.db.isOpen) this.db.close();
  }
}
