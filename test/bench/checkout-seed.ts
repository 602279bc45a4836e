// Grows the tables a checkout write touches (sessions and idempotency records) to a given row count,
// in the database itself (a generated series), so a million rows take seconds rather than requests.
import type { SqlDriver } from '../../api/storage/sql-driver.ts';

// Seeded rows are finished and far from expiry, so neither the sweeper nor a purge touches them. Their
// payload is small (the indexes, not the row bytes, are what a create's lookups walk).
const FAR = 4_102_444_800_000; // 2100-01-01
const PAYLOAD = JSON.stringify({ cart: { items: [], note: 'seeded'.padEnd(160, '.') }, buyer: null });
const CHUNK = 100_000;

/** The numbers from $1 to $2 as rows `n`, in each dialect, and the casts its parameters need. */
function numbered(driver: SqlDriver) {
  return driver.dialect === 'postgres'
    ? { prefix: '', source: 'generate_series($1::bigint, $2::bigint) AS g(n)', json: 'JSONB' }
    : {
        prefix: 'WITH RECURSIVE g(n) AS (SELECT $1 UNION ALL SELECT n + 1 FROM g WHERE n < $2) ',
        source: 'g',
        json: 'TEXT',
      };
}

async function seedRange(driver: SqlDriver, from: number, to: number): Promise<void> {
  const { prefix, source, json } = numbered(driver);
  const params = [from, to, PAYLOAD, Date.now(), FAR];
  await driver.transaction(async (tx) => {
    await tx.query(
      `${prefix}INSERT INTO checkout_sessions (id, protocol, status, data, revision, created_at, updated_at, expires_at)
       SELECT 'cs_seed_' || n, 'acp', 'completed', CAST($3 AS ${json}), 1, CAST($4 AS BIGINT), CAST($4 AS BIGINT),
         CAST($5 AS BIGINT) FROM ${source}`,
      params,
    );
    await tx.query(
      `${prefix}INSERT INTO checkout_idempotency (scope, key, fingerprint, state, status_code, headers, body, created_at, locked_until, expires_at)
       SELECT 'seed', 'k' || n, 'f', 'done', 201, CAST('{}' AS ${json}), CAST($3 AS TEXT), CAST($4 AS BIGINT),
         CAST($5 AS BIGINT), CAST($5 AS BIGINT) FROM ${source}`,
      params,
    );
  });
}

/** Adds seeded rows to both tables until each holds at least `target` rows; returns the time taken. */
export async function seedCheckoutRows(driver: SqlDriver, target: number): Promise<number> {
  const started = performance.now();
  const [row] = await driver.query<{ n: number }>(
    "SELECT COUNT(*) AS n FROM checkout_sessions WHERE id LIKE 'cs_seed_%'",
  );
  const [all] = await driver.query<{ n: number }>('SELECT COUNT(*) AS n FROM checkout_sessions');
  let next = Number(row?.n ?? 0) + 1;
  const missing = target - Number(all?.n ?? 0);
  const last = next + missing - 1;
  while (next <= last) {
    const to = Math.min(last, next + CHUNK - 1);
    await seedRange(driver, next, to);
    next = to + 1;
  }
  if (driver.dialect === 'postgres') await driver.query('ANALYZE checkout_sessions, checkout_idempotency');
  else await driver.query('PRAGMA wal_checkpoint(TRUNCATE)');
  return performance.now() - started;
}
