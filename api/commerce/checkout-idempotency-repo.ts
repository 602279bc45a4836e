// Idempotency records for the checkout surfaces: claimed by one statement, so of many concurrent requests
// with one key exactly one runs; the others see it in flight, replay its bytes, or conflict.
import { readJson, writeJson } from '../storage/json-column.ts';
import type { SqlDriver, SqlExecutor, SqlValue } from '../storage/sql-driver.ts';

/** What a finished claim keeps so every replay repeats it; the repository never looks inside. */
export interface StoredReplay {
  statusCode: number;
  headers: Record<string, string>;
  /** Kept as the exact bytes, so a replay is byte-identical. */
  body: string;
}

export type IdempotencyClaim =
  | { outcome: 'claimed' }
  | { outcome: 'replay'; response: StoredReplay }
  | { outcome: 'conflict' }
  | { outcome: 'in_flight'; retryAfterSeconds: number };

interface IdempotencyRow {
  fingerprint: string;
  state: 'in_flight' | 'done';
  status_code: number | null;
  headers: unknown;
  body: string | null;
  locked_until: number;
  expires_at: number;
}

export interface ClaimOptions {
  scope: string;
  key: string;
  fingerprint: string;
  now: number;
  /** How long a claim may run before another request may take it over (its process died). */
  lockMs: number;
  /** How long a finished record is kept (at least 24 hours). */
  ttlMs: number;
}

/**
 * The one statement that finishes a claim. Its placeholders start at `$first` and `onlyIf` narrows its
 * WHERE, so it can also run inside a larger statement after that statement's own parameters.
 */
export function finishClaim(
  scope: string,
  key: string,
  replay: StoredReplay,
  first = 1,
  onlyIf = '',
): { sql: string; params: SqlValue[] } {
  const $ = (i: number) => `$${first + i}`;
  return {
    sql: `UPDATE checkout_idempotency SET state = 'done', status_code = ${$(2)}, headers = ${$(3)}, body = ${$(4)}
     WHERE scope = ${$(0)} AND key = ${$(1)}${onlyIf}`,
    params: [scope, key, replay.statusCode, writeJson(replay.headers), replay.body],
  };
}

/**
 * The one statement that claims a key already finished, for a write that claims and answers at once;
 * it inserts nothing (returns no row) when the key is held.
 */
const CLAIM_FINISHED_SQL = `INSERT INTO checkout_idempotency
    (scope, key, fingerprint, state, status_code, headers, body, created_at, locked_until, expires_at)
  VALUES ($1, $2, $3, 'done', $4, $5, $6, $7, $8, $9)
  ON CONFLICT (scope, key) DO NOTHING RETURNING key`;

export function claimFinished(o: ClaimOptions, replay: StoredReplay): { sql: string; params: SqlValue[] } {
  return { sql: CLAIM_FINISHED_SQL, params: finishedClaimRow(o, replay) };
}

/**
 * A finished claim's values: scope, key, fingerprint, status code, headers, body, created at, locked
 * until and expires at (the one-row statement above and the batched creates both write these).
 */
export function finishedClaimRow(o: ClaimOptions, replay: StoredReplay): SqlValue[] {
  return [
    o.scope,
    o.key,
    o.fingerprint,
    replay.statusCode,
    writeJson(replay.headers),
    replay.body,
    o.now,
    o.now + o.lockMs,
    o.now + o.ttlMs,
  ];
}

export async function finishIdempotency(
  tx: SqlExecutor,
  scope: string,
  key: string,
  replay: StoredReplay,
): Promise<void> {
  const finish = finishClaim(scope, key, replay);
  await tx.query(finish.sql, finish.params);
}

export class CheckoutIdempotencyRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  async claim(o: ClaimOptions): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.db.query(
        `INSERT INTO checkout_idempotency (scope, key, fingerprint, state, created_at, locked_until, expires_at)
         VALUES ($1, $2, $3, 'in_flight', $4, $5, $6)
         ON CONFLICT (scope, key) DO NOTHING RETURNING key`,
        [o.scope, o.key, o.fingerprint, o.now, o.now + o.lockMs, o.now + o.ttlMs],
      );
      if (inserted.length === 1) return { outcome: 'claimed' };
      const [row] = await this.db.query<IdempotencyRow>(
        'SELECT * FROM checkout_idempotency WHERE scope = $1 AND key = $2',
        [o.scope, o.key],
      );
      if (!row) continue; // purged between the two statements: try the insert again
      if (Number(row.expires_at) <= o.now) {
        await this.db.query(
          'DELETE FROM checkout_idempotency WHERE scope = $1 AND key = $2 AND expires_at <= $3',
          [o.scope, o.key, o.now],
        );
        continue;
      }
      return this.decide(row, o);
    }
    throw new Error(`idempotency key ${o.key} could not be claimed`);
  }

  private async decide(row: IdempotencyRow, o: ClaimOptions): Promise<IdempotencyClaim> {
    if (row.fingerprint !== o.fingerprint) return { outcome: 'conflict' };
    if (row.state === 'done') {
      return {
        outcome: 'replay',
        response: {
          statusCode: Number(row.status_code),
          headers: readJson<Record<string, string>>(row.headers),
          body: row.body ?? '',
        },
      };
    }
    const lockedUntil = Number(row.locked_until);
    if (lockedUntil < o.now) {
      // The first request's process died mid-way: this request takes the claim over.
      const taken = await this.db.query(
        `UPDATE checkout_idempotency SET locked_until = $3
         WHERE scope = $1 AND key = $2 AND state = 'in_flight' AND locked_until = $4 RETURNING key`,
        [o.scope, o.key, o.now + o.lockMs, lockedUntil],
      );
      if (taken.length === 1) return { outcome: 'claimed' };
    }
    return { outcome: 'in_flight', retryAfterSeconds: Math.max(1, Math.ceil((lockedUntil - o.now) / 1000)) };
  }

  /** Records a response that changed nothing (an error, a read-only answer) so replays repeat it. */
  async finish(scope: string, key: string, response: StoredReplay): Promise<void> {
    await finishIdempotency(this.db, scope, key, response);
  }

  /** Frees a claim whose request failed unexpectedly, so a retry runs it afresh. */
  async abandon(scope: string, key: string): Promise<void> {
    await this.db.query(
      `DELETE FROM checkout_idempotency WHERE scope = $1 AND key = $2 AND state = 'in_flight'`,
      [scope, key],
    );
  }

  async purgeExpired(now: number): Promise<number> {
    const rows = await this.db.query(
      'DELETE FROM checkout_idempotency WHERE expires_at <= $1 RETURNING key',
      [now],
    );
    return rows.length;
  }
}
