// The column types the two dialects spell differently, so a migration whose tables differ only in
// type names is written once and filled in per dialect.
import type { Dialect } from './sql-driver.ts';

export interface ColumnTypes {
  /** Epoch milliseconds and other 64-bit integers: SQLite's INTEGER is already 64-bit. */
  bigint: string;
  /** A JSON document: jsonb on PostgreSQL, text on SQLite (json-column.ts reads both). */
  json: string;
  boolean: string;
}

const columnTypes: Record<Dialect, ColumnTypes> = {
  sqlite: { bigint: 'INTEGER', json: 'TEXT', boolean: 'INTEGER' },
  postgres: { bigint: 'BIGINT', json: 'JSONB', boolean: 'BOOLEAN' },
};

/** One migration body for both dialects, with each dialect's type names filled in. */
export function eachDialect(body: (t: ColumnTypes) => string): Record<Dialect, string> {
  return { sqlite: body(columnTypes.sqlite), postgres: body(columnTypes.postgres) };
}
