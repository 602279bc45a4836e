// The orders: one per finished checkout, never replaced. The first buys the account's subscription,
// later ones change it (plan, interval, add-ons); each keeps what it bought.
import { readJson, writeJson } from '../storage/json-column.ts';
import type { SqlDriver } from '../storage/sql-driver.ts';
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
}

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

type OrderData = Pick<OrderRecord, 'items' | 'from'>;

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
    trialEnd: r.trial_end === null ? null : Number(r.trial_end),
    createdAt: Number(r.created_at),
  };
};

export class OrdersRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  async get(id: string): Promise<OrderRecord | undefined> {
    const [row] = await this.db.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [id]);
    return row ? toRecord(row) : undefined;
  }

  async bySession(checkoutSessionId: string): Promise<OrderRecord | undefined> {
    const [row] = await this.db.query<OrderRow>('SELECT * FROM orders WHERE checkout_session_id = $1', [
      checkoutSessionId,
    ]);
    return row ? toRecord(row) : undefined;
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

  /** Records the order of a checkout once; a repeated finish of the same checkout gets the first. */
  async record(o: OrderRecord): Promise<OrderRecord> {
    const data = writeJson({ items: o.items, ...(o.from ? { from: o.from } : {}) } satisfies OrderData);
    await this.db.query(
      `INSERT INTO orders (id, account_id, checkout_session_id, subscription_id, kind, plan, billing_interval,
         data, trial_end, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (checkout_session_id) DO NOTHING`,
      [
        o.id,
        o.accountId,
        o.checkoutSessionId,
        o.subscriptionId,
        o.kind,
        o.plan,
        o.interval,
        data,
        o.trialEnd,
        o.createdAt,
      ],
    );
    const stored = await this.bySession(o.checkoutSessionId);
    if (!stored) throw new Error('order insert left no row');
    return stored;
  }
}
