// Each account's one subscription: bought by its first finished checkout, changed by later ones (their
// orders are in orders-repo.ts), and never replaced, so its id and the processor's stay the same.
import { readJson, writeJson } from '../storage/json-column.ts';
import type { SqlDriver, SqlExecutor } from '../storage/sql-driver.ts';

export const subscriptionStatuses = [
  'trialing',
  'active',
  'past_due',
  'unpaid',
  'paused',
  'canceled',
] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export interface SubscriptionRecord {
  id: string;
  accountId: string;
  checkoutSessionId: string;
  /** Stripe's states that Colony tells apart; `past_due`, `unpaid` and `paused` are not paid up. */
  status: SubscriptionStatus;
  plan: string;
  interval: 'month' | 'year';
  /** Every purchased item with the price it was bought at (integer cents per interval). */
  items: { itemId: string; quantity: number; unitAmount: number }[];
  trialEnd: number | null;
  processor: string;
  /** The processor's own id for the subscription (or the test processor's reference). */
  processorRef: string;
  /** True when bought through a processor in test mode (sandbox or local runs): nothing is ever charged. */
  testMode: boolean;
  createdAt: number;
  updatedAt: number;
}

/** Runs in the transaction of a sync that changed the status, and only then (an outbox write). */
export type OnStatusChanged = (
  tx: SqlExecutor,
  subscription: SubscriptionRecord,
  before: SubscriptionStatus,
) => Promise<void>;

interface SubscriptionRow {
  account_id: string;
  id: string;
  checkout_session_id: string;
  status: SubscriptionRecord['status'];
  plan: string;
  billing_interval: SubscriptionRecord['interval'];
  data: unknown;
  trial_end: number | null;
  processor: string;
  processor_ref: string;
  created_at: number;
  updated_at: number;
}

type SubscriptionData = Pick<SubscriptionRecord, 'items' | 'testMode'>;

const toRecord = (r: SubscriptionRow): SubscriptionRecord => {
  const data = readJson<SubscriptionData>(r.data);
  return {
    id: r.id,
    accountId: r.account_id,
    checkoutSessionId: r.checkout_session_id,
    status: r.status,
    plan: r.plan,
    interval: r.billing_interval,
    items: data.items,
    testMode: data.testMode,
    trialEnd: r.trial_end === null ? null : Number(r.trial_end),
    processor: r.processor,
    processorRef: r.processor_ref,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
};

export class SubscriptionsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  async ofAccount(accountId: string): Promise<SubscriptionRecord | undefined> {
    const [row] = await this.db.query<SubscriptionRow>('SELECT * FROM subscriptions WHERE account_id = $1', [
      accountId,
    ]);
    return row ? toRecord(row) : undefined;
  }

  /** A subscription Colony still bills: not canceled (a trial counts). */
  static live(s: SubscriptionRecord | undefined): s is SubscriptionRecord {
    return s !== undefined && s.status !== 'canceled';
  }

  /** The subscriptions of one processor that are not canceled, oldest first. */
  async liveOf(processor: string): Promise<SubscriptionRecord[]> {
    const rows = await this.db.query<SubscriptionRow>(
      "SELECT * FROM subscriptions WHERE processor = $1 AND status <> 'canceled' ORDER BY created_at, id",
      [processor],
    );
    return rows.map(toRecord);
  }

  async byProcessorRef(processor: string, processorRef: string): Promise<SubscriptionRecord | undefined> {
    const [row] = await this.db.query<SubscriptionRow>(
      'SELECT * FROM subscriptions WHERE processor = $1 AND processor_ref = $2',
      [processor, processorRef],
    );
    return row ? toRecord(row) : undefined;
  }

  /**
   * The state just read from the processor, unless a sync that read later already wrote: answers
   * whether this one was written. `onChanged` runs in the same transaction when the status changed.
   */
  async sync(
    id: string,
    state: { status: SubscriptionStatus; trialEnd: number | null },
    readAt: number,
    onChanged?: OnStatusChanged,
  ): Promise<boolean> {
    const params = [id, state.status, state.trialEnd, readAt];
    if (!onChanged) return (await this.db.query(SYNC, params)).length === 1;
    return this.db.transaction(async (tx) => {
      // PostgreSQL: two syncs of one subscription take turns, so one status change is seen once.
      const lock = tx.dialect === 'postgres' ? ' FOR UPDATE' : '';
      const [before] = await tx.query<SubscriptionRow>(`SELECT * FROM subscriptions WHERE id = $1${lock}`, [
        id,
      ]);
      const [row] = await tx.query<SubscriptionRow>(SYNC, params);
      if (!row) return false;
      if (before && before.status !== row.status) await onChanged(tx, toRecord(row), before.status);
      return true;
    });
  }

  /** Writes the account's subscription; its id and creation time are the first purchase's for good. */
  async record(s: SubscriptionRecord): Promise<SubscriptionRecord> {
    const data = writeJson({ items: s.items, testMode: s.testMode } satisfies SubscriptionData);
    const [row] = await this.db.query<SubscriptionRow>(
      `INSERT INTO subscriptions (account_id, id, checkout_session_id, status, plan, billing_interval, data,
         trial_end, processor, processor_ref, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
       ON CONFLICT (account_id) DO UPDATE SET
         checkout_session_id = excluded.checkout_session_id,
         status = excluded.status, plan = excluded.plan, billing_interval = excluded.billing_interval,
         data = excluded.data, trial_end = excluded.trial_end, processor = excluded.processor,
         processor_ref = excluded.processor_ref, updated_at = excluded.updated_at
       RETURNING *`,
      [
        s.accountId,
        s.id,
        s.checkoutSessionId,
        s.status,
        s.plan,
        s.interval,
        data,
        s.trialEnd,
        s.processor,
        s.processorRef,
        s.createdAt,
      ],
    );
    if (!row) throw new Error('subscription upsert returned no row');
    return toRecord(row);
  }
}

const SYNC = `UPDATE subscriptions SET status = $2, trial_end = $3, synced_at = $4, updated_at = $4
  WHERE id = $1 AND (synced_at IS NULL OR synced_at <= $4) RETURNING *`;
