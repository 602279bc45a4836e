// Applies schema migrations in the order given, once each, recording every id in schema_migrations.
import type { Dialect, SqlDriver } from './sql-driver.ts';

export interface Migration {
  /** Recorded in schema_migrations once applied, so an id is never reused or renumbered. */
  id: number;
  name: string;
  /** The DDL for each dialect; column-types.ts writes a body once when only type names differ. */
  sql: Record<Dialect, string>;
}

/** Applies pending migrations; on PostgreSQL an advisory lock keeps replicas from racing. */
export async function migrate(
  driver: SqlDriver,
  migrations: readonly Migration[],
  now: () => number = Date.now,
): Promise<number[]> {
  const ledger =
    'CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)';
  return driver.transaction(async (tx) => {
    // The lock comes first: concurrent CREATE TABLE IF NOT EXISTS can still collide on PostgreSQL.
    if (tx.dialect === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(7263511)');
    await tx.query(ledger);
    const rows = await tx.query<{ id: number }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => Number(r.id)));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      for (const statement of splitStatements(m.sql[tx.dialect])) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
        m.id,
        m.name,
        now(),
      ]);
      applied.push(m.id);
    }
    return applied;
  });
}

// Migration bodies hold plain DDL without semicolons inside literals, so a split on ';' is exact.
function splitStatements(script: string): string[] {
  return script
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
