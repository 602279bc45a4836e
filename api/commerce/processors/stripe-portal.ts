// The Stripe reads and parameters behind the account's plan page: one subscription read with its payment
// method and latest invoice expanded, the upcoming-invoice preview, the customer's invoices, and the
// hosted customer portal (Stripe Billing's own page for payment methods, invoices and cancelling).
import Stripe from 'stripe';
import { describeStripeSubscription, renews } from './stripe-description.ts';
import type { PortalFlow, SubscriptionDescription } from './subscription-description.ts';

type Client = Pick<Stripe, 'subscriptions' | 'invoices'>;

/** As many invoices as the page lists: a year of monthly ones and change. */
const INVOICES_SHOWN = 24;

const EXPAND = [
  'latest_invoice',
  'default_payment_method',
  'customer.invoice_settings.default_payment_method',
];

export const customerOf = (sub: Stripe.Subscription): string =>
  typeof sub.customer === 'string' ? sub.customer : sub.customer.id;

/** The next invoice as Stripe would draw it now; none once the subscription will not renew. */
async function upcoming(stripe: Client, sub: Stripe.Subscription): Promise<Stripe.Invoice | null> {
  if (!renews(sub)) return null;
  try {
    return await stripe.invoices.createPreview({ subscription: sub.id });
  } catch (err) {
    // Stripe answers invoice_upcoming_none when nothing more is due (a subscription ending, for one).
    if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'invoice_upcoming_none')
      return null;
    throw err;
  }
}

export async function stripeDescription(
  stripe: Client,
  subscriptionRef: string,
): Promise<{ status: Stripe.Subscription.Status; description: Omit<SubscriptionDescription, 'status'> }> {
  const sub = await stripe.subscriptions.retrieve(subscriptionRef, { expand: EXPAND });
  const [preview, listed] = await Promise.all([
    upcoming(stripe, sub),
    stripe.invoices.list({ customer: customerOf(sub), limit: INVOICES_SHOWN }),
  ]);
  // The latest invoice leads even when the list (newest first) was cut before it, as when it is unpaid.
  const latest = typeof sub.latest_invoice === 'object' ? sub.latest_invoice : null;
  const invoices =
    latest && !listed.data.some((i) => i.id === latest.id) ? [latest, ...listed.data] : listed.data;
  return { status: sub.status, description: describeStripeSubscription(sub, preview, invoices) };
}

/** A portal session for the subscription's customer; `cancel` opens straight on cancelling it. */
export function portalSessionParams(
  sub: Stripe.Subscription,
  returnUrl: string,
  flow: PortalFlow,
): Stripe.BillingPortal.SessionCreateParams {
  return {
    customer: customerOf(sub),
    return_url: returnUrl,
    ...(flow === 'cancel'
      ? {
          flow_data: {
            type: 'subscription_cancel',
            subscription_cancel: { subscription: sub.id },
            after_completion: { type: 'redirect', redirect: { return_url: returnUrl } },
          },
        }
      : {}),
  };
}
