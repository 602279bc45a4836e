// The narrow seam both databases implement; repositories are written once against it.

export type Dialect = 'sqlite' | 'postgres';
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;

/**
 * A hot statement with a name of its own: PostgreSQL parses and plans it once per connection
 * (a named prepared statement) instead of on every execution. SQLite caches every statement anyway.
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** A statement's text, or a named one's. */
export type Statement = string | NamedStatement;

export const named = (name: string, text: string): NamedStatement => ({ name, text });

export const statementText = (sql: Statement): string => (typeof sql === 'string' ? sql : sql.text);

export interface SqlExecutor {
  readonly dialect: Dialect;
  /** Runs one statement with `$1, $2 …` placeholders and returns its rows. */
  query<T = Record<string, unknown>>(sql: Statement, params?: readonly SqlValue[]): Promise<T[]>;
}

export interface Listening {
  close(): Promise<void>;
}

export interface SqlDriver extends SqlExecutor {
  /** Runs `fn` in one transaction; a thrown error rolls it back. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Delivers what other connections send on `channel` (PostgreSQL's NOTIFY); `onReady` runs after
   * each (re)connection, when anything sent meanwhile must be assumed missed. SQLite has no
   * other process to hear from, so it has none.
   */
  listen?(channel: string, onPayload: (payload: string) => void, onReady: () => void): Listening;
  close(): Promise<void>;
}

/** Thrown for unique-constraint violations so callers can tell a lost race from a real failure. */
export class UniqueViolationError extends Error {
  override readonly name = 'UniqueViolationError';
}

/**
 * Thrown when the database cannot be reached or is too busy to answer within its bound (refused,
 * timed out, dropped, shutting down, locked). The message is fixed: a driver's own may name the host.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
  readonly statusCode = 503;

  constructor(cause: unknown) {
    super('The database is not reachable.', { cause });
  }
}
