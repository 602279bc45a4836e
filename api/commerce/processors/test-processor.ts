// The built-in test processor for sandbox and local runs: its own small hosted page collects a billing
// address, assesses tax from it with a fixed table and starts the trial. Nothing is ever charged.
import { randomHex } from '../../shared/random-id.ts';
import type { BillingHandoffsRepo } from '../billing-handoffs-repo.ts';
import { firstChargeAt } from '../checkout-terms.ts';
import type {
  ChangedSubscription,
  ConfirmedCheckout,
  PaymentProcessor,
  ProcessorCheckout,
  StartedCheckout,
  SubscriptionChange,
  UsageReport,
} from './processor.ts';
import type { DescribedSubscription, SubscriptionDescription } from './subscription-description.ts';
import { cancelAtOf, currentPeriodEnd, describeTestSubscription } from './test-processor-billing.ts';

/** Test-mode rates by billing country (percent); anything else is taxed at 0. Not tax advice. */
export const TEST_TAX_RATES: Record<string, number> = {
  US: 0,
  CA: 5,
  GB: 20,
  DE: 19,
  FR: 20,
  NL: 21,
  AU: 10,
};

export function testTaxRate(country: string): number {
  return TEST_TAX_RATES[country.toUpperCase()] ?? 0;
}

export class TestProcessor implements PaymentProcessor {
  readonly name = 'test' as const;
  readonly testMode = true;
  private readonly baseUrl: string;
  private readonly handoffs: BillingHandoffsRepo;
  private readonly now: () => number;

  constructor(o: { baseUrl: string; handoffs: BillingHandoffsRepo; now: () => number }) {
    this.baseUrl = o.baseUrl;
    this.handoffs = o.handoffs;
    this.now = o.now;
  }

  async start(c: ProcessorCheckout): Promise<StartedCheckout> {
    const reference = `tp_${randomHex(16)}`;
    return {
      reference,
      redirectUrl: `${this.baseUrl}/checkout/${encodeURIComponent(c.sessionId)}/test-processor?reference=${reference}`,
    };
  }

  /** Called by the test processor's own page once the owner submitted a billing address. */
  async pay(
    reference: string,
    billing: { name: string; country: string; postalCode: string },
  ): Promise<void> {
    const handoff = await this.handoffs.get(reference);
    if (!handoff) throw new Error(`no test payment ${reference}`);
    const subtotal = Number(handoff.data.subtotal ?? 0);
    const rate = testTaxRate(billing.country);
    await this.handoffs.complete(
      reference,
      {
        ...handoff.data,
        billing_name: billing.name,
        billing_country: billing.country.toUpperCase(),
        billing_postal_code: billing.postalCode,
        tax_rate_percent: rate,
        amount_tax: Math.round((subtotal * rate) / 100),
        paid_at: this.now(),
      },
      this.now(),
    );
  }

  /** Nothing is charged, so there is nothing to prorate: the subscription just takes the new lines. */
  async changeSubscription(c: SubscriptionChange): Promise<ChangedSubscription> {
    const trialing = c.subscription.status === 'trialing' && (c.subscription.trialEnd ?? 0) > this.now();
    return {
      subscriptionStatus: trialing ? 'trialing' : 'active',
      trialEnd: trialing ? c.subscription.trialEnd : null,
    };
  }

  /** Colony's own record is the only one: there is nothing remote to read. */
  async subscriptionState(_subscriptionRef: string): Promise<undefined> {
    return undefined;
  }

  async describeSubscription(s: DescribedSubscription): Promise<SubscriptionDescription> {
    const [handoffs, own] = await Promise.all([
      this.handoffs.ofAccount(s.accountId),
      this.handoffs.get(s.processorRef),
    ]);
    return describeTestSubscription(s, { handoffs, own }, this.now());
  }

  /** No hosted portal: Colony's own cancel (cancelAtPeriodEnd) stands in for it. */
  async portalUrl(): Promise<undefined> {
    return undefined;
  }

  /**
   * Colony's own cancel, as Stripe's `cancel_at_period_end`: the plan runs to the end of the period
   * (a trial to its end) and can be resumed until then. Answers when it ends; asking again keeps the
   * date first set.
   */
  async cancelAtPeriodEnd(s: DescribedSubscription): Promise<number> {
    const own = await this.handoffs.get(s.processorRef);
    if (!own) throw new Error(`no test subscription ${s.processorRef}`);
    const already = cancelAtOf(own);
    if (already !== null) return already;
    const at = currentPeriodEnd(s, this.now());
    await this.handoffs.updateData(own.reference, { ...own.data, cancel_at: at }, this.now());
    return at;
  }

  /** Takes back a pending cancel; false once the plan has ended (or had no cancel pending). */
  async resume(subscriptionRef: string): Promise<boolean> {
    const own = await this.handoffs.get(subscriptionRef);
    const at = cancelAtOf(own);
    if (!own || at === null || at <= this.now()) return false;
    const { cancel_at: _dropped, ...data } = own.data;
    await this.handoffs.updateData(own.reference, data, this.now());
    return true;
  }

  /** Usage reported so far, by identifier: a repeated report is the same entry (as Stripe dedupes). */
  readonly usage = new Map<string, UsageReport>();

  async reportUsage(u: UsageReport): Promise<void> {
    if (!this.usage.has(u.identifier)) this.usage.set(u.identifier, u);
  }

  /** The test processor never charges, so there is nothing to stop. */
  async cancelSubscription(_subscriptionRef: string): Promise<void> {}

  async confirm(reference: string): Promise<ConfirmedCheckout> {
    const handoff = await this.handoffs.get(reference);
    if (handoff?.processor !== 'test' || handoff.status !== 'complete') return { status: 'open' };
    const paidAt = Number(handoff.data.paid_at ?? this.now());
    const trialDays = Number(handoff.data.trial_days ?? 0);
    return {
      status: 'complete',
      subscriptionRef: reference,
      subscriptionStatus: trialDays > 0 ? 'trialing' : 'active',
      trialEnd: trialDays > 0 ? firstChargeAt(paidAt, trialDays) : null,
      details: handoff.data,
    };
  }
}
