// Hand-offs from the billing page to a payment processor: which processor checkout belongs to which
// session and account, so a return from the processor is only believed for the account that started it.
import { readJson, writeJson } from '../storage/json-column.ts';
import type { SqlDriver } from '../storage/sql-driver.ts';

export interface BillingHandoff {
  reference: string;
  processor: string;
  checkoutSessionId: string;
  accountId: string;
  status: 'open' | 'complete';
  /** Processor-specific details: the test processor's billing address and tax, for example. */
  data: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

interface HandoffRow {
  reference: string;
  processor: string;
  checkout_session_id: string;
  account_id: string;
  status: BillingHandoff['status'];
  data: unknown;
  created_at: number;
  updated_at: number;
}

const toHandoff = (r: HandoffRow): BillingHandoff => ({
  reference: r.reference,
  processor: r.processor,
  checkoutSessionId: r.checkout_session_id,
  accountId: r.account_id,
  status: r.status,
  data: readJson<Record<string, unknown>>(r.data),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export class BillingHandoffsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  async open(h: Omit<BillingHandoff, 'status' | 'updatedAt'>): Promise<void> {
    await this.db.query(
      `INSERT INTO billing_handoffs (reference, processor, checkout_session_id, account_id, status, data, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'open', $5, $6, $6)`,
      [h.reference, h.processor, h.checkoutSessionId, h.accountId, writeJson(h.data), h.createdAt],
    );
  }

  async get(reference: string): Promise<BillingHandoff | undefined> {
    const [row] = await this.db.query<HandoffRow>('SELECT * FROM billing_handoffs WHERE reference = $1', [
      reference,
    ]);
    return row ? toHandoff(row) : undefined;
  }

  /** The hand-offs of one checkout session, newest first. */
  async ofSession(checkoutSessionId: string): Promise<BillingHandoff[]> {
    const rows = await this.db.query<HandoffRow>(
      'SELECT * FROM billing_handoffs WHERE checkout_session_id = $1 ORDER BY created_at DESC, reference',
      [checkoutSessionId],
    );
    return rows.map(toHandoff);
  }

  /** The account's hand-offs, newest first: the test processor's receipts. */
  async ofAccount(accountId: string): Promise<BillingHandoff[]> {
    const rows = await this.db.query<HandoffRow>(
      'SELECT * FROM billing_handoffs WHERE account_id = $1 ORDER BY created_at DESC, reference',
      [accountId],
    );
    return rows.map(toHandoff);
  }

  /** Rewrites a hand-off's details and nothing else (the test processor's pending cancel). */
  async updateData(reference: string, data: Record<string, unknown>, now: number): Promise<void> {
    await this.db.query('UPDATE billing_handoffs SET data = $2, updated_at = $3 WHERE reference = $1', [
      reference,
      writeJson(data),
      now,
    ]);
  }

  async complete(reference: string, data: Record<string, unknown>, now: number): Promise<void> {
    await this.db.query(
      `UPDATE billing_handoffs SET status = 'complete', data = $2, updated_at = $3 WHERE reference = $1`,
      [reference, writeJson(data), now],
    );
  }
}
