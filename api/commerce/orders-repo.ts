// The orders: one per finished checkout, never replaced. The first buys the account's subscription,
// later ones change it (plan, interval, add-ons); each keeps what it bought.
import { readJson, writeJson } from '../storage/json-column.ts';
import type { SqlDriver, SqlExecutor } from '../storage/sql-driver.ts';
import type { SubscriptionRecord } from './subscriptions-repo.ts';

export interface OrderRecord {
  id: string;
  accountId: string;
  checkoutSessionId: string;
  subscriptionId: string;
  kind: 'subscribe' | 'change';
  plan: string;
  interval: 'month' | 'year';
  items: SubscriptionRecord['items'];
  /** A change: the plan and interval it moved from. */
  from?: { plan: string; interval: 'month' | 'year' };
  trialEnd: number | null;
  createdAt: number;
  /** The agent platform whose API key created the checkout (ACP order webhooks go there). */
  platformId?: string;
}

/** Runs in the transaction that inserted the order, and only then (an outbox write). */
export type OnOrderInserted = (tx: SqlExecutor, order: OrderRecord) => Promise<void>;

interface OrderRow {
  id: string;
  account_id: string;
  checkout_session_id: string;
  subscription_id: string;
  kind: OrderRecord['kind'];
  plan: string;
  billing_interval: OrderRecord['interval'];
  data: unknown;
  trial_end: number | null;
  created_at: number;
}

type OrderData = Pick<OrderRecord, 'items' | 'from' | 'platformId'>;

const toRecord = (r: OrderRow): OrderRecord => {
  const data = readJson<OrderData>(r.data);
  return {
    id: r.id,
    accountId: r.account_id,
    checkoutSessionId: r.checkout_session_id,
    subscriptionId: r.subscription_id,
    kind: r.kind,
    plan: r.plan,
    interval: r.billing_interval,
    items: data.items,
    ...(data.from ? { from: data.from } : {}),
    ...(data.platformId ? { platformId: data.platformId } : {}),
    trialEnd: r.trial_end === null ? null : Number(r.trial_end),
    createdAt: Number(r.created_at),
  };
};

/** The order a checkout session finished with, on any executor (a transaction's, for one). */
export async function orderOfSession(
  db: SqlExecutor,
  checkoutSessionId: string,
): Promise<OrderRecord | undefined> {
  const [row] = await db.query<OrderRow>('SELECT * FROM orders WHERE checkout_session_id = $1', [
    checkoutSessionId,
  ]);
  return row ? toRecord(row) : undefined;
}

export class OrdersRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  async get(id: string): Promise<OrderRecord | undefined> {
    const [row] = await this.db.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [id]);
    return row ? toRecord(row) : undefined;
  }

  bySession(checkoutSessionId: string): Promise<OrderRecord | undefined> {
    return orderOfSession(this.db, checkoutSessionId);
  }

  /** Newest first. */
  async ofAccount(accountId: string): Promise<OrderRecord[]> {
    const rows = await this.db.query<OrderRow>(
      'SELECT * FROM orders WHERE account_id = $1 ORDER BY created_at DESC, id',
      [accountId],
    );
    return rows.map(toRecord);
  }

  /** Whether the account ever bought a plan: its free trial is then spent. */
  async anyOf(accountId: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM orders WHERE account_id = $1 LIMIT 1', [accountId]);
    return rows.length > 0;
  }

  /**
   * Records the order of a checkout once; a repeated finish of the same checkout gets the first.
   * `onInserted` runs in the same transaction when this call inserted it.
   */
  async record(o: OrderRecord, onInserted?: OnOrderInserted): Promise<OrderRecord> {
    const insert = async (db: SqlExecutor) => {
      const [row] = await db.query<OrderRow>(INSERT_ORDER, orderParams(o));
      if (row && onInserted) await onInserted(db, toRecord(row));
    };
    if (onInserted) await this.db.transaction(insert);
    else await insert(this.db);
    const stored = await this.bySession(o.checkoutSessionId);
    if (!stored) throw new Error('order insert left no row');
    return stored;
  }
}

const INSERT_ORDER = `INSERT INTO orders (id, account_id, checkout_session_id, subscription_id, kind, plan,
    billing_interval, data, trial_end, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
  ON CONFLICT (checkout_session_id) DO NOTHING RETURNING *`;

function orderParams(o: OrderRecord) {
  const data: OrderData = {
    items: o.items,
    ...(o.from ? { from: o.from } : {}),
    ...(o.platformId ? { platformId: o.platformId } : {}),
  };
  return [
    o.id,
    o.accountId,
    o.checkoutSessionId,
    o.subscriptionId,
    o.kind,
    o.plan,
    o.interval,
    writeJson(data),
    o.trialEnd,
    o.createdAt,
  ];
}
