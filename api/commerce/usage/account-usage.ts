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
}

export class AccountUsage {
  private readonly o: AccountUsageOptions;

  constructor(o: AccountUsageOptions) {
    this.o = o;
  }

  /** The summary, or null when nothing is metered here (no cluster) or the account has no plan nor office. */
  async forAccount(accountId: string): Promise<UsageSummary | null> {
    const { storage, prices, ledgers, now } = this.o;
    if (!ledgers) return null;
    const [subscription, offices] = await Promise.all([
      storage.subscriptions.ofAccount(accountId),
      storage.officeBilling.officesOf(accountId),
    ]);
    if (!subscription && offices.length === 0) return null;
    const at = now();
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
