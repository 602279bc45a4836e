// Pure: a Stripe subscription (payment method expanded), its upcoming-invoice preview and the customer's
// invoices, read as the plan page's description of the subscription (its status is the caller's).
import type Stripe from 'stripe';
import type {
  InvoiceSummary,
  NextCharge,
  PaymentMethodSummary,
  SubscriptionDescription,
} from './subscription-description.ts';

const ms = (seconds: number | null | undefined) => (seconds ? seconds * 1000 : null);

/** Whether Stripe will invoice the subscription again: not ended, not set to end. */
export function renews(sub: Stripe.Subscription): boolean {
  return !sub.cancel_at_period_end && sub.cancel_at === null && !sub.ended_at && sub.status !== 'canceled';
}

/** When the subscription renews: its trial's end, else the earliest item's period end. */
export function renewalAt(sub: Stripe.Subscription): number | null {
  if (sub.status === 'trialing' && sub.trial_end) return sub.trial_end * 1000;
  const ends = sub.items.data.map((i) => i.current_period_end).filter((e) => typeof e === 'number');
  return ends.length > 0 ? Math.min(...ends) * 1000 : null;
}

/** The end the owner chose: an explicit `cancel_at`, or the current period's end. */
function cancelAt(sub: Stripe.Subscription): number | null {
  if (sub.cancel_at) return sub.cancel_at * 1000;
  return sub.cancel_at_period_end ? renewalAt(sub) : null;
}

function methodOf(pm: string | Stripe.PaymentMethod | null | undefined): PaymentMethodSummary | null {
  if (!pm || typeof pm === 'string') return null;
  if (pm.card) return { brand: pm.card.brand, last4: pm.card.last4 };
  const details = (pm as unknown as Record<string, { last4?: unknown } | undefined>)[pm.type];
  return { brand: pm.type, last4: typeof details?.last4 === 'string' ? details.last4 : null };
}

/** The subscription's own method, else the customer's default for invoices. */
export function paymentMethodOf(sub: Stripe.Subscription): PaymentMethodSummary | null {
  const own = methodOf(sub.default_payment_method);
  if (own) return own;
  const customer = typeof sub.customer === 'object' && !('deleted' in sub.customer) ? sub.customer : null;
  return methodOf(customer?.invoice_settings?.default_payment_method);
}

const REASONS: Record<string, string> = {
  subscription_create: 'First invoice of the plan',
  subscription_cycle: 'Renewal',
  subscription_update: 'Plan change',
  subscription_threshold: 'Usage threshold',
  manual: 'Invoice',
  upcoming: 'Upcoming invoice',
};

export function invoiceSummary(inv: Stripe.Invoice): InvoiceSummary {
  return {
    id: inv.id ?? '',
    number: inv.number,
    status: inv.status ?? 'draft',
    total: inv.total,
    currency: inv.currency,
    createdAt: inv.created * 1000,
    description: inv.description ?? REASONS[inv.billing_reason ?? ''] ?? 'Invoice',
    hostedUrl: inv.hosted_invoice_url ?? null,
    pdfUrl: inv.invoice_pdf ?? null,
  };
}

function nextChargeOf(sub: Stripe.Subscription, preview: Stripe.Invoice | null): NextCharge | null {
  if (!preview || !renews(sub)) return null;
  const at = renewalAt(sub) ?? ms(preview.next_payment_attempt) ?? ms(preview.period_end);
  return at === null ? null : { amount: preview.amount_due, currency: preview.currency, at };
}

export function describeStripeSubscription(
  sub: Stripe.Subscription,
  preview: Stripe.Invoice | null,
  invoices: readonly Stripe.Invoice[],
): Omit<SubscriptionDescription, 'status'> {
  return {
    trialEnd: ms(sub.trial_end),
    cancelAt: cancelAt(sub),
    nextCharge: nextChargeOf(sub, preview),
    paymentMethod: paymentMethodOf(sub),
    invoices: invoices.map(invoiceSummary),
  };
}
