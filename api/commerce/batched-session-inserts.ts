// PostgreSQL: new checkout sessions with their idempotency keys, many per statement. Each row is
// exactly the one-row write (claim the key finished, insert the session only if the claim held), so a
// batch of concurrent creates costs one round trip and one commit instead of one each.
import { writeJson } from '../storage/json-column.ts';
import type { SqlExecutor, SqlValue } from '../storage/sql-driver.ts';
import { WriteBatcher } from '../storage/write-batcher.ts';
import type { ClaimOptions, StoredReplay } from './checkout-idempotency-repo.ts';

export interface ClaimedInsert {
  /** The session row: id, protocol, status, data, revision, created, updated and expires at. */
  session: readonly SqlValue[];
  claim: ClaimOptions;
  response: StoredReplay;
}

// One array parameter per column: the statement's text and its parameter count never change with the
// batch size, so PostgreSQL parses one statement, whatever the load.
const BATCH_SQL = `WITH v AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::integer[], $6::bigint[],
      $7::bigint[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::integer[], $13::jsonb[],
      $14::text[], $15::bigint[], $16::bigint[], $17::bigint[])
    AS v(id, protocol, status, data, revision, created_at, updated_at, expires_at,
      scope, key, fingerprint, status_code, headers, body, claimed_at, locked_until, kept_until)
  ),
  c AS (
    INSERT INTO checkout_idempotency
      (scope, key, fingerprint, state, status_code, headers, body, created_at, locked_until, expires_at)
    SELECT scope, key, fingerprint, 'done', status_code, headers, body, claimed_at, locked_until, kept_until
    FROM v
    ON CONFLICT (scope, key) DO NOTHING RETURNING scope, key
  ),
  s AS (
    INSERT INTO checkout_sessions (id, protocol, status, data, revision, created_at, updated_at, expires_at)
    SELECT v.id, v.protocol, v.status, v.data, v.revision, v.created_at, v.updated_at, v.expires_at
    FROM v JOIN c ON c.scope = v.scope AND c.key = v.key
    RETURNING id
  )
  SELECT id FROM s`;

const COLUMNS = 17;

/** The batch's parameters: column i of every row, as one array. */
export function batchParams(rows: readonly ClaimedInsert[]): SqlValue[][] {
  const columns: SqlValue[][] = Array.from({ length: COLUMNS }, () => []);
  for (const { session, claim, response } of rows) {
    const row: SqlValue[] = [
      ...session,
      claim.scope,
      claim.key,
      claim.fingerprint,
      response.statusCode,
      writeJson(response.headers),
      response.body,
      claim.now,
      claim.now + claim.lockMs,
      claim.now + claim.ttlMs,
    ];
    for (const [i, value] of row.entries()) columns[i]?.push(value);
  }
  return columns;
}

/** Which sessions of the batch were written; the others found their key already held. */
export async function insertBatch(db: SqlExecutor, rows: readonly ClaimedInsert[]): Promise<boolean[]> {
  // pg binds a JavaScript array as a PostgreSQL array; SqlValue leaves arrays out for SQLite's sake.
  const written = await db.query<{ id: string }>(BATCH_SQL, batchParams(rows) as unknown as SqlValue[]);
  const ids = new Set(written.map((r) => r.id));
  return rows.map((r) => ids.has(String(r.session[0])));
}

// One statement at a time, the next gathering while it commits: measured against two and four in
// flight (docs/decisions.md), one gave the largest batches and the least CPU per create. 64 rows
// bound a statement's size.
const MAX_IN_FLIGHT = 1;
const MAX_BATCH = 64;

export function claimedInsertBatcher(db: SqlExecutor): WriteBatcher<ClaimedInsert, boolean> {
  return new WriteBatcher((rows) => insertBatch(db, rows), {
    maxInFlight: MAX_IN_FLIGHT,
    maxBatch: MAX_BATCH,
    // Two creates with one key never share a statement: a statement cannot tell which of them won.
    keyOf: (r) => `${r.claim.scope}\u0000${r.claim.key}`,
  });
}
