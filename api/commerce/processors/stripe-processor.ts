// The Stripe processor: a Stripe Checkout Session in subscription mode, priced from the catalog lines
// (price_data, so Stripe holds no second price list), with the plan's trial and automatic tax from the
// billing address Stripe collects.
import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import type { PricedLine } from '../checkout-pricing.ts';
import { type SubscriptionStatus, subscriptionStatuses } from '../subscriptions-repo.ts';
import {
  type ChangedSubscription,
  type ConfirmedCheckout,
  type PaymentProcessor,
  type ProcessorCheckout,
  REFERENCE_PLACEHOLDER,
  type StartedCheckout,
  type SubscriptionChange,
  type SubscriptionState,
  type UsageReport,
} from './processor.ts';
import { portalSessionParams, stripeDescription } from './stripe-portal.ts';
import type {
  DescribedSubscription,
  PortalFlow,
  SubscriptionDescription,
} from './subscription-description.ts';

export interface StripeProcessorOptions {
  secretKey: string;
  /** Another API address (stripe-mock in tests). */
  apiUrl?: string;
  /** How long one API call may take (default 10 s); Stripe's own default, 80 s, would hold a request. */
  timeoutMs?: number;
  /** A client to use instead of building one (unit tests stand one in). */
  client?: StripeClient;
  /** The `event_name` of the billing meter usage is reported to. */
  meterEvent?: string;
}

export const DEFAULT_METER_EVENT = 'colony_credits';

type StripeClient = Pick<
  Stripe,
  'checkout' | 'subscriptions' | 'products' | 'invoices' | 'billingPortal' | 'billing'
>;

const DEFAULT_TIMEOUT_MS = 10_000;

// One retry in production: every call carries an idempotency key, so a retried timeout cannot charge or
// open twice, and the owner waits at most two timeouts before the page says the processor is down.
function clientOptions(apiUrl: string | undefined, timeout: number): ConstructorParameters<typeof Stripe>[1] {
  if (!apiUrl) return { maxNetworkRetries: 1, timeout };
  const url = new URL(apiUrl);
  return {
    host: url.hostname,
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    protocol: url.protocol === 'https:' ? 'https' : 'http',
    maxNetworkRetries: 0,
    timeout,
  };
}

export function stripeIdempotencyKey(c: ProcessorCheckout): string {
  const cart = c.lines.map((l) => [l.itemId, l.quantity, l.unitAmount]);
  const digest = createHash('sha256')
    // The expiry is a request parameter too: Stripe refuses a key reused with other parameters.
    .update(JSON.stringify([cart, c.trialDays, stripeExpiry(c)]))
    .digest('hex')
    .slice(0, 16);
  return `colony-${c.sessionId}-${c.accountId}-${digest}`;
}

// Stripe accepts a Checkout Session expiry between 30 minutes and 24 hours ahead.
const STRIPE_MIN_EXPIRY_MS = 30 * 60_000 + 60_000;
const STRIPE_MAX_EXPIRY_MS = 24 * 60 * 60_000 - 60_000;

/**
 * The Stripe page expires with the Colony session, so nobody pays for a checkout that has ended; a
 * session with under half an hour left gets Stripe's shortest expiry.
 */
export function stripeExpiry(c: Pick<ProcessorCheckout, 'expiresAt' | 'now'>): number {
  const at = Math.min(Math.max(c.expiresAt, c.now + STRIPE_MIN_EXPIRY_MS), c.now + STRIPE_MAX_EXPIRY_MS);
  return Math.floor(at / 1000);
}

/** Stripe's subscription states as Colony records them: an expired first payment is an end. */
export function colonyStatus(status: Stripe.Subscription.Status): SubscriptionStatus {
  if (status === 'incomplete_expired') return 'canceled';
  if (status === 'incomplete') return 'past_due';
  // A state a newer API version adds is not one Colony can vouch for as paid.
  return (subscriptionStatuses as readonly string[]).includes(status)
    ? (status as SubscriptionStatus)
    : 'past_due';
}

/** Stripe replaces this in success_url with the Checkout Session id. */
const STRIPE_SESSION_ID = '{CHECKOUT_SESSION_ID}';

export class StripeProcessor implements PaymentProcessor {
  readonly name = 'stripe' as const;
  readonly testMode: boolean;
  private readonly stripe: StripeClient;
  private readonly meterEvent: string;
  /** The customer of each subscription: it never changes, so it is read once per process. */
  private readonly customers = new Map<string, string>();

  constructor(o: StripeProcessorOptions) {
    this.meterEvent = o.meterEvent ?? DEFAULT_METER_EVENT;
    this.stripe =
      o.client ?? new Stripe(o.secretKey, clientOptions(o.apiUrl, o.timeoutMs ?? DEFAULT_TIMEOUT_MS));
    this.testMode = /^(sk|rk)_test_/.test(o.secretKey);
  }

  async start(c: ProcessorCheckout): Promise<StartedCheckout> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        client_reference_id: c.sessionId,
        customer_email: c.accountEmail,
        line_items: c.lines.map((l) => ({
          quantity: l.quantity,
          price_data: {
            currency: 'usd',
            unit_amount: l.unitAmount,
            recurring: { interval: l.interval },
            product_data: {
              name: l.name,
              description: l.description,
              metadata: { colony_item_id: l.itemId },
            },
          },
        })),
        subscription_data: {
          trial_period_days: c.trialDays,
          metadata: { colony_checkout_session: c.sessionId, colony_account: c.accountId },
        },
        billing_address_collection: 'required',
        automatic_tax: { enabled: true },
        metadata: { colony_checkout_session: c.sessionId, colony_account: c.accountId },
        expires_at: stripeExpiry(c),
        success_url: c.successUrl.replace(REFERENCE_PLACEHOLDER, STRIPE_SESSION_ID),
        cancel_url: c.cancelUrl,
      },
      // One Stripe Checkout Session per Colony session, account and cart, however often the owner clicks;
      // a cart an agent changed meanwhile is a new request, not one Stripe refuses as a key reuse.
      { idempotencyKey: stripeIdempotencyKey(c) },
    );
    if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL');
    return { reference: session.id, redirectUrl: session.url };
  }

  async cancelSubscription(subscriptionRef: string): Promise<void> {
    // Immediately, not at period end: the subscription is in its trial and nothing was bought with it.
    // The key makes concurrent or repeated cancels (webhook redeliveries racing the owner's return) one.
    if (subscriptionRef.startsWith('sub_'))
      await this.stripe.subscriptions.cancel(
        subscriptionRef,
        {},
        { idempotencyKey: `colony-cancel-${subscriptionRef}` },
      );
  }

  /**
   * Replaces the subscription's items with the new lines in one update, which Stripe prorates
   * (`create_prorations`: a credit for the unused part, a charge for the rest, on the next invoice);
   * a trial in progress keeps its end. The key makes a repeated confirm of one checkout one update.
   */
  async changeSubscription(c: SubscriptionChange): Promise<ChangedSubscription> {
    const ref = c.subscription.processorRef;
    const current = await this.stripe.subscriptions.retrieve(ref);
    const products: string[] = [];
    for (const line of c.lines) products.push(await this.productFor(line));
    const updated = await this.stripe.subscriptions.update(
      ref,
      {
        items: [
          ...current.items.data.map((item) => ({ id: item.id, deleted: true })),
          ...c.lines.map((l, i) => ({
            quantity: l.quantity,
            price_data: {
              currency: 'usd',
              unit_amount: l.unitAmount,
              recurring: { interval: l.interval },
              product: products[i] ?? '',
            },
          })),
        ],
        proration_behavior: 'create_prorations',
        metadata: { colony_checkout_session: c.sessionId, colony_account: c.subscription.accountId },
      },
      { idempotencyKey: `colony-change-${c.sessionId}` },
    );
    return {
      subscriptionStatus: updated.status === 'trialing' ? 'trialing' : 'active',
      trialEnd: updated.trial_end ? updated.trial_end * 1000 : null,
    };
  }

  async subscriptionState(subscriptionRef: string): Promise<SubscriptionState> {
    const sub = await this.stripe.subscriptions.retrieve(subscriptionRef);
    return { status: colonyStatus(sub.status), trialEnd: sub.trial_end ? sub.trial_end * 1000 : null };
  }

  async describeSubscription(s: DescribedSubscription): Promise<SubscriptionDescription> {
    const described = await stripeDescription(this.stripe, s.processorRef);
    return { ...described.description, status: colonyStatus(described.status) };
  }

  async portalUrl(subscriptionRef: string, returnUrl: string, flow: PortalFlow): Promise<string> {
    const sub = await this.stripe.subscriptions.retrieve(subscriptionRef);
    const session = await this.stripe.billingPortal.sessions.create(
      portalSessionParams(sub, returnUrl, flow),
    );
    return session.url;
  }

  /**
   * A billing meter event for the subscription's customer, in thousandths of a credit (Stripe meters
   * sum whole numbers; the overage price divides by 1,000). The identifier is Stripe's dedupe key and
   * the idempotency key too, so a retry after a lost answer is the same event.
   */
  async reportUsage(u: UsageReport): Promise<void> {
    const customer = await this.customerOf(u.subscriptionRef);
    await this.stripe.billing.meterEvents.create(
      {
        event_name: this.meterEvent,
        identifier: u.identifier,
        timestamp: Math.floor(u.timestamp / 1000),
        payload: { stripe_customer_id: customer, value: String(u.quantity) },
      },
      { idempotencyKey: u.identifier },
    );
  }

  private async customerOf(subscriptionRef: string): Promise<string> {
    const known = this.customers.get(subscriptionRef);
    if (known) return known;
    const sub = await this.stripe.subscriptions.retrieve(subscriptionRef);
    const customer = typeof sub.customer === 'string' ? sub.customer : sub.customer.id;
    this.customers.set(subscriptionRef, customer);
    return customer;
  }

  /**
   * A subscription item's inline price names a Product by id (a Checkout Session took product_data):
   * one Product per catalog item, made the first time it is needed, with an id Colony can name again.
   */
  private async productFor(line: PricedLine): Promise<string> {
    const id = `colony_${line.itemId}`;
    try {
      await this.stripe.products.create(
        { id, name: line.name, description: line.description, metadata: { colony_item_id: line.itemId } },
        { idempotencyKey: `colony-product-${id}` },
      );
    } catch (err) {
      const exists =
        err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_already_exists';
      if (!exists) throw err;
    }
    return id;
  }

  async confirm(reference: string): Promise<ConfirmedCheckout> {
    const session = await this.stripe.checkout.sessions.retrieve(reference, { expand: ['subscription'] });
    if (session.status === 'expired') return { status: 'expired' };
    if (session.status !== 'complete') return { status: 'open' };
    // A delayed payment method (a bank debit) completes the session before the money arrives: it is
    // settled by `checkout.session.async_payment_succeeded`, not by the owner's return.
    if (session.payment_status === 'unpaid') return { status: 'awaiting_payment' };
    const sub = typeof session.subscription === 'object' ? session.subscription : null;
    const subscriptionRef =
      sub?.id ?? (typeof session.subscription === 'string' ? session.subscription : reference);
    return {
      status: 'complete',
      subscriptionRef,
      subscriptionStatus: sub?.status === 'active' ? 'active' : 'trialing',
      trialEnd: sub?.trial_end ? sub.trial_end * 1000 : null,
      details: {
        stripe_checkout_session: session.id,
        amount_tax: session.total_details?.amount_tax ?? null,
        billing_country: session.customer_details?.address?.country ?? null,
      },
    };
  }
}
