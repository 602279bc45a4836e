// Checkout sessions of both protocols, written with an optimistic revision check and, when a request
// carries an Idempotency-Key, in the same transaction as the response that replays it.

import { readJson, writeJson } from '../storage/json-column.ts';
import type { SqlDriver, SqlExecutor } from '../storage/sql-driver.ts';
import type { WriteBatcher } from '../storage/write-batcher.ts';
import { type ClaimedInsert, claimedInsertBatcher } from './batched-session-inserts.ts';
import {
  type ClaimOptions,
  claimFinished,
  finishClaim,
  finishIdempotency,
  type StoredReplay,
} from './checkout-idempotency-repo.ts';
import type { CheckoutSession, CheckoutStatus } from './checkout-session.ts';

interface SessionRow {
  id: string;
  protocol: CheckoutSession['protocol'];
  status: CheckoutStatus;
  data: unknown;
  revision: number;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

type SessionData = Pick<CheckoutSession, 'cart' | 'buyer' | 'escalatedAt' | 'order' | 'platformId'>;

const toSession = (r: SessionRow): CheckoutSession => {
  const data = readJson<SessionData>(r.data);
  return {
    id: r.id,
    protocol: r.protocol,
    status: r.status,
    cart: data.cart,
    buyer: data.buyer,
    escalatedAt: data.escalatedAt,
    order: data.order,
    ...(data.platformId ? { platformId: data.platformId } : {}),
    revision: Number(r.revision),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    expiresAt: Number(r.expires_at),
  };
};

const dataOf = (s: CheckoutSession): string =>
  writeJson({
    cart: s.cart,
    buyer: s.buyer,
    escalatedAt: s.escalatedAt,
    order: s.order,
    ...(s.platformId ? { platformId: s.platformId } : {}),
  } satisfies SessionData);

/** One write: a new session or the next revision of one, and optionally the idempotent response for it. */
export interface SessionWrite {
  session: CheckoutSession;
  /** True for a new session; otherwise the stored revision must be `session.revision - 1`. */
  created: boolean;
  /** With `claim`, the key is claimed by this write, which writes nothing when the key is held. */
  idempotency?: { scope: string; key: string; response: StoredReplay; claim?: ClaimOptions };
}

export class CheckoutSessionsRepo {
  private readonly db: SqlDriver;
  /** PostgreSQL: concurrent creates with a key share one statement (batched-session-inserts.ts). */
  private readonly creates: WriteBatcher<ClaimedInsert, boolean> | undefined;

  constructor(db: SqlDriver) {
    this.db = db;
    if (db.dialect === 'postgres') this.creates = claimedInsertBatcher(db);
  }

  async get(id: string): Promise<CheckoutSession | undefined> {
    const [row] = await this.db.query<SessionRow>('SELECT * FROM checkout_sessions WHERE id = $1', [id]);
    return row ? toSession(row) : undefined;
  }

  /** False when another writer moved the session first (the caller re-reads and decides again). */
  async write(w: SessionWrite): Promise<boolean> {
    if (!w.idempotency) return w.created ? insert(this.db, w.session) : replace(this.db, w.session);
    const { idempotency } = w;
    const { claim } = idempotency;
    // PostgreSQL: one statement writes both, atomically, saving the round trips of a transaction.
    if (this.db.dialect === 'postgres')
      return claim && w.created && this.creates
        ? this.creates.submit({ session: insertParams(w.session), claim, response: idempotency.response })
        : writeWithResponse(this.db, w.session, w.created, idempotency);
    return this.db
      .transaction(async (tx) => {
        if (claim) {
          const finished = claimFinished(claim, idempotency.response);
          if ((await tx.query(finished.sql, finished.params)).length === 0) throw new LostRace();
        }
        const written = w.created ? await insert(tx, w.session) : await replace(tx, w.session);
        if (!written) throw new LostRace();
        if (!claim) await finishIdempotency(tx, idempotency.scope, idempotency.key, idempotency.response);
        return true;
      })
      .catch((err) => {
        if (err instanceof LostRace) return false;
        throw err;
      });
  }

  async count(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM checkout_sessions');
    return Number(row?.n ?? 0);
  }

  /** The sweeper: every live session past its expiry becomes `expired`; returns how many. */
  async expireDue(now: number, limit = 500): Promise<number> {
    const rows = await this.db.query(
      `UPDATE checkout_sessions SET status = 'expired', revision = revision + 1, updated_at = $1
       WHERE id IN (
         SELECT id FROM checkout_sessions
         WHERE status IN ('not_ready_for_payment', 'ready_for_payment', 'requires_escalation') AND expires_at <= $1
         LIMIT $2
       )
       RETURNING id`,
      [now, limit],
    );
    return rows.length;
  }
}

class LostRace extends Error {}

const INSERT_SESSION = `INSERT INTO checkout_sessions (id, protocol, status, data, revision, created_at, updated_at, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`;
const insertParams = (s: CheckoutSession) =>
  [s.id, s.protocol, s.status, dataOf(s), s.revision, s.createdAt, s.updatedAt, s.expiresAt] as const;

const REPLACE_SESSION = `UPDATE checkout_sessions SET status = $3, data = $4, revision = $5, updated_at = $6
  WHERE id = $1 AND revision = $2 RETURNING id`;
const replaceParams = (s: CheckoutSession) =>
  [s.id, s.revision - 1, s.status, dataOf(s), s.revision, s.updatedAt] as const;

async function insert(tx: SqlExecutor, s: CheckoutSession): Promise<boolean> {
  return (await tx.query(INSERT_SESSION, insertParams(s))).length === 1;
}

async function replace(tx: SqlExecutor, s: CheckoutSession): Promise<boolean> {
  return (await tx.query(REPLACE_SESSION, replaceParams(s))).length === 1;
}

// The session write and the stored response in one statement; the response is recorded only when the
// session was written (a lost revision race writes neither).
async function writeWithResponse(
  db: SqlExecutor,
  s: CheckoutSession,
  created: boolean,
  idem: NonNullable<SessionWrite['idempotency']>,
): Promise<boolean> {
  const params = created ? insertParams(s) : replaceParams(s);
  const finish = finishClaim(
    idem.scope,
    idem.key,
    idem.response,
    params.length + 1,
    ' AND EXISTS (SELECT 1 FROM s)',
  );
  const [row] = await db.query<{ written: number }>(
    `WITH s AS (${created ? INSERT_SESSION : REPLACE_SESSION}),
       i AS (${finish.sql} RETURNING 1)
     SELECT (SELECT COUNT(*) FROM s) AS written`,
    [...params, ...finish.params],
  );
  return Number(row?.written) === 1;
}
