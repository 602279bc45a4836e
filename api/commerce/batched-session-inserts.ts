// PostgreSQL: new checkout sessions with their idempotency keys, many per statement. Each row is
// exactly the one-row write (claim the key finished, insert the session only if the claim held), so a
// batch of concurrent creates costs one round trip and one commit instead of one each.
import { named, type SqlExecutor, type SqlValue } from '../storage/sql-driver.ts';
import { WriteBatcher } from '../storage/write-batcher.ts';
import { type ClaimOptions, finishedClaimRow, type StoredReplay } from './checkout-idempotency-repo.ts';

export interface ClaimedInsert {
  /** The session row: id, protocol, status, data, revision, created, updated and expires at. */
  session: readonly SqlValue[];
  claim: ClaimOptions;
  response: StoredReplay;
}

// The batch is one JSON parameter, an array of rows, each an array of the columns below: the
// statement's text never changes with the batch size, so it is a named statement that PostgreSQL
// parses and plans once per connection (sent unnamed, it was planned again for every batch), and the
// rows are encoded by the native JSON.stringify (pg's array literals escape every string in
// JavaScript, which showed in a create's profile). jsonb, not json: json's ->> parses the row's text
// again for every column, which tripled PostgreSQL's CPU per create. The two jsonb columns (the
// session's data, the response's headers) are nested values read with ->, not strings: as strings
// every quote in them was escaped here, sent twice its size, and parsed twice by PostgreSQL.
const BATCH_SQL = named(
  'checkout_create_batch',
  `WITH v AS (
    SELECT r->>0 AS id, r->>1 AS protocol, r->>2 AS status, r->3 AS data,
      (r->>4)::integer AS revision, (r->>5)::bigint AS created_at, (r->>6)::bigint AS updated_at,
      (r->>7)::bigint AS expires_at, r->>8 AS scope, r->>9 AS key, r->>10 AS fingerprint,
      (r->>11)::integer AS status_code, r->12 AS headers, r->>13 AS body,
      (r->>14)::bigint AS claimed_at, (r->>15)::bigint AS locked_until, (r->>16)::bigint AS kept_until
    FROM jsonb_array_elements($1::jsonb) AS r
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
  SELECT id FROM s`,
);

/** The batch's one parameter: every row's columns, in BATCH_SQL's order, as JSON. */
export function batchParam(rows: readonly ClaimedInsert[]): string {
  return `[${rows.map(rowJson).join(',')}]`;
}

/** A JSON array's elements without its brackets, to splice into a longer array. */
const elements = (values: readonly SqlValue[]) => JSON.stringify(values).slice(1, -1);

/** One row, with the two columns that hold JSON text (written by writeJson) spliced in as it is. */
function rowJson(r: ClaimedInsert): string {
  const s = r.session;
  const c = finishedClaimRow(r.claim, r.response);
  // Session: id, protocol, status | data | revision to expires at. Claim: scope to status code |
  // headers | body to kept until.
  const middle = elements([...s.slice(4), ...c.slice(0, 4)]);
  return `[${elements(s.slice(0, 3))},${jsonText(s[3])},${middle},${jsonText(c[4])},${elements(c.slice(5))}]`;
}

/** A jsonb column's value: always JSON text from writeJson (never SQL NULL) on this path. */
function jsonText(value: SqlValue | undefined): string {
  if (typeof value !== 'string') throw new TypeError('a batched jsonb column takes JSON text');
  return value;
}

/** Which sessions of the batch were written; the others found their key already held. */
export async function insertBatch(db: SqlExecutor, rows: readonly ClaimedInsert[]): Promise<boolean[]> {
  const written = await db.query<{ id: string }>(BATCH_SQL, [batchParam(rows)]);
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
