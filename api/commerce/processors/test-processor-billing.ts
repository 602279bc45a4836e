// Pure: the test processor's billing periods and its description of a subscription, from Colony's record
// and the processor's own hand-off records. Nothing is ever charged; the figures are what would be.
import type { BillingHandoff } from '../billing-handoffs-repo.ts';
import type {
  DescribedSubscription,
  InvoiceSummary,
  SubscriptionDescription,
} from './subscription-description.ts';

/** `at` moved by whole months, the day clamped to the month's last as Stripe does (Jan 31 → Feb 28). */
export function addMonths(at: number, months: number): number {
  const d = new Date(at);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), last));
  return target.getTime() + (at - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/** The end of the billing period running at `now`: a trial's end, else the next anniversary of the start. */
export function currentPeriodEnd(s: DescribedSubscription, now: number): number {
  if (s.trialEnd !== null && s.trialEnd > now) return s.trialEnd;
  const anchor = s.trialEnd ?? s.createdAt;
  const step = s.interval === 'year' ? 12 : 1;
  let periods = 1;
  while (addMonths(anchor, periods * step) <= now) periods++;
  return addMonths(anchor, periods * step);
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A finished test payment as a receipt: a trial's start charges nothing, a purchase its total. */
export function receiptOf(h: BillingHandoff): InvoiceSummary {
  const trial = num(h.data.trial_days) > 0;
  return {
    id: h.reference,
    number: null,
    status: 'paid',
    total: trial ? 0 : num(h.data.subtotal) + num(h.data.amount_tax),
    currency: 'usd',
    createdAt: num(h.data.paid_at) || h.updatedAt,
    description: trial ? 'Free trial started (test mode)' : 'Plan bought (test mode: nothing charged)',
    hostedUrl: null,
    pdfUrl: null,
  };
}

export interface TestRecords {
  /** The account's hand-offs, newest first. */
  handoffs: readonly BillingHandoff[];
  /** The subscription's own hand-off (its processorRef), where a pending cancel is kept. */
  own: BillingHandoff | undefined;
}

export function cancelAtOf(own: BillingHandoff | undefined): number | null {
  const at = own?.data.cancel_at;
  return typeof at === 'number' ? at : null;
}

export function describeTestSubscription(
  s: DescribedSubscription,
  records: TestRecords,
  now: number,
): SubscriptionDescription {
  const cancelAt = cancelAtOf(records.own);
  const ended = s.status === 'canceled' || (cancelAt !== null && cancelAt <= now);
  const subtotal = s.items.reduce((sum, i) => sum + i.unitAmount * i.quantity, 0);
  const tax = Math.round((subtotal * num(records.own?.data.tax_rate_percent)) / 100);
  return {
    status: ended ? 'canceled' : s.status,
    trialEnd: s.trialEnd,
    cancelAt,
    nextCharge:
      ended || cancelAt !== null
        ? null
        : { amount: subtotal + tax, currency: 'usd', at: currentPeriodEnd(s, now) },
    paymentMethod: null,
    invoices: records.handoffs
      .filter((h) => h.processor === 'test' && h.status === 'complete')
      .map(receiptOf),
  };
}
