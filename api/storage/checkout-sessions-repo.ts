// Checkout sessions of both protocols, written with an optimistic revision check and, when a request
// carries an Idempotency-Key, in the same transaction as the response that replays it.
import type { CheckoutSession, CheckoutStatus } from '../commerce/checkout-session.ts';
import { type FinishedResponse, finishIdempotency } from './checkout-idempotency-repo.ts';
import { readJson, writeJson } from './json-column.ts';
import type { SqlDriver, SqlExecutor } from './sql-driver.ts';

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

type SessionData = Pick<CheckoutSession, 'cart' | 'buyer' | 'escalatedAt' | 'order'>;

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
  } satisfies SessionData);

/** One write: a new session or the next revision of one, and optionally the idempotent response for it. */
export interface SessionWrite {
  session: CheckoutSession;
  /** True for a new session; otherwise the stored revision must be `session.revision - 1`. */
  created: boolean;
  idempotency?: { scope: string; key: string; response: FinishedResponse };
}

export class CheckoutSessionsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  async get(id: string): Promise<CheckoutSession | undefined> {
    const [row] = await this.db.query<SessionRow>('SELECT * FROM checkout_sessions WHERE id = $1', [id]);
    return row ? toSession(row) : undefined;
  }

  /** False when another writer moved the session first (the caller re-reads and decides again). */
  async write(w: SessionWrite): Promise<boolean> {
    const run = async (tx: SqlExecutor): Promise<boolean> => {
      const written = w.created ? await insert(tx, w.session) : await replace(tx, w.session);
      if (!written) return false;
      if (w.idempotency)
        await finishIdempotency(tx, w.idempotency.scope, w.idempotency.key, w.idempotency.response);
      return true;
    };
    if (!w.idempotency) return run(this.db);
    // A rolled-back transaction leaves the record in flight; the caller then abandons it.
    return this.db
      .transaction(async (tx) => {
        const ok = await run(tx);
        if (!ok) throw new LostRace();
        return ok;
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

async function insert(tx: SqlExecutor, s: CheckoutSession): Promise<boolean> {
  await tx.query(
    `INSERT INTO checkout_sessions (id, protocol, status, data, revision, created_at, updated_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [s.id, s.protocol, s.status, dataOf(s), s.revision, s.createdAt, s.updatedAt, s.expiresAt],
  );
  return true;
}

async function replace(tx: SqlExecutor, s: CheckoutSession): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE checkout_sessions SET status = $2, data = $3, revision = $4, updated_at = $5
     WHERE id = $1 AND revision = $6 RETURNING id`,
    [s.id, s.status, dataOf(s), s.revision, s.updatedAt, s.revision - 1],
  );
  return rows.length === 1;
}
