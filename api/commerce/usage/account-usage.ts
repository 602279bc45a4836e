// An account's usage this period: the credits of the offices it pays for, read from their ledgers,
// against the allowance of its plan (what /api/v1/me, /account and `colony usage` show).
import { periodMilliCredits, usagePeriod } from '../../../cluster/usage-ledger.ts';
import type { Storage } from '../../app-storage.ts';
import type { PriceList } from '../../domain/pricing/price-list.ts';
import type { LedgerSource } from './office-ledgers.ts';
import { summarizeUsage, type UsageSummary } from './usage-summary.ts';

export interface AccountUsageOptions {
  storage: Pick<Storage, 'subscriptions' | 'officeBilling'>;
  prices: PriceList;
  /** Undefined without a cluster: nothing is metered, so there is no usage to show. */
  ledgers: LedgerSource | undefined;
  now: () => number;
  log?: { warn(obj: object, msg: string): void };
  /** How long a summary is served again (ms); the ledgers move once a minute anyway. */
  cacheMs?: number;
}

const DEFAULT_CACHE_MS = 15_000;
const MAX_CACHED = 10_000;

export class AccountUsage {
  private readonly o: AccountUsageOptions;
  /** Recent summaries by account: /me is called often, and each summary costs cluster reads. */
  private readonly cache = new Map<string, { at: number; value: UsageSummary | null }>();

  constructor(o: AccountUsageOptions) {
    this.o = o;
  }

  /**
   * The summary, or null when nothing is metered here (no cluster), the account has neither plan nor
   * office, or the ledgers cannot be read right now (the cluster's trouble must not fail /me). A
   * remembered summary comes without a promise: /me asks at every request.
   */
  forAccount(accountId: string): UsageSummary | null | Promise<UsageSummary | null> {
    const at = this.o.now();
    const hit = this.cache.get(accountId);
    if (hit && at - hit.at < (this.o.cacheMs ?? DEFAULT_CACHE_MS)) return hit.value;
    return this.refresh(accountId, at);
  }

  private async refresh(accountId: string, at: number): Promise<UsageSummary | null> {
    let value: UsageSummary | null;
    try {
      value = await this.summarize(accountId, at);
    } catch (err) {
      this.o.log?.warn({ err: (err as Error).message }, 'usage ledgers unreadable; usage left out');
      return null;
    }
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(accountId, { at, value });
    return value;
  }

  private async summarize(accountId: string, at: number): Promise<UsageSummary | null> {
    const { storage, prices, ledgers } = this.o;
    if (!ledgers) return null;
    const [subscription, offices] = await Promise.all([
      storage.subscriptions.ofAccount(accountId),
      storage.officeBilling.officesOf(accountId),
    ]);
    if (!subscription && offices.length === 0) return null;
    const period = usagePeriod(at);
    const usage = await Promise.all(
      offices.map(async (officeId) => {
        const ledger = await ledgers.ledgerOf(officeId);
        return { officeId, milliCredits: ledger ? periodMilliCredits(ledger, period) : 0 };
      }),
    );
    const live = subscription && subscription.status !== 'canceled' ? subscription : undefined;
    const plan = live ? prices.plans.find((p) => p.slug === live.plan) : undefined;
    return summarizeUsage({ period, offices: usage, plan, now: at });
  }
}
