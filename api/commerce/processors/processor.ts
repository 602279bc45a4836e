// The payment-processor seam behind the hosted billing page: start a hosted checkout for a session and
// an account, then confirm what the owner did there. Processors collect the billing address and
// payment details and assess tax; Colony never sees a card number.
import type { PricedLine } from '../checkout-pricing.ts';
import type { SubscriptionRecord, SubscriptionStatus } from '../subscriptions-repo.ts';
import type {
  DescribedSubscription,
  PortalFlow,
  SubscriptionDescription,
} from './subscription-description.ts';

export interface ProcessorCheckout {
  sessionId: string;
  accountId: string;
  accountEmail: string;
  lines: readonly PricedLine[];
  trialDays: number;
  /** Where the processor sends the owner when they finish; `{REFERENCE}` is replaced by the processor. */
  successUrl: string;
  cancelUrl: string;
  /** When the Colony session expires (epoch ms): the processor's page should not outlive it. */
  expiresAt: number;
  /** Now (epoch ms), for processors that bound their own expiry. */
  now: number;
}

export interface StartedCheckout {
  reference: string;
  redirectUrl: string;
}

export type ConfirmedCheckout =
  | {
      status: 'complete';
      /** The processor's subscription id (a test reference for the test processor). */
      subscriptionRef: string;
      subscriptionStatus: 'trialing' | 'active';
      trialEnd: number | null;
      /** What the processor reported about tax and the billing address, for the record. */
      details: Record<string, unknown>;
    }
  /** `awaiting_payment`: finished by the owner, paid by a delayed method that has not cleared yet. */
  | { status: 'open' | 'expired' | 'awaiting_payment' };

export interface PaymentProcessor {
  readonly name: 'test' | 'stripe';
  /** True when nothing can be charged (the test processor, Stripe test keys): sandbox and local runs. */
  readonly testMode: boolean;
  start(c: ProcessorCheckout): Promise<StartedCheckout>;
  confirm(reference: string): Promise<ConfirmedCheckout>;
  /** Ends a subscription the processor opened that Colony will not honour (a second payer). */
  cancelSubscription(subscriptionRef: string): Promise<void>;
  /**
   * Moves the account's one subscription to these lines, prorating as the processor does; a trial in
   * progress continues. Repeating it for the same session changes nothing more.
   */
  changeSubscription(c: SubscriptionChange): Promise<ChangedSubscription>;
  /** The subscription as the processor holds it now; undefined when it keeps none (the test one). */
  subscriptionState(subscriptionRef: string): Promise<SubscriptionState | undefined>;
  /** The plan page's view of the subscription: next charge, payment method, receipts and invoices. */
  describeSubscription(s: DescribedSubscription): Promise<SubscriptionDescription>;
  /**
   * A one-time link into the processor's hosted customer portal, which comes back to `returnUrl`;
   * undefined when the processor has none (the test one: Colony's own cancel stands in).
   */
  portalUrl(subscriptionRef: string, returnUrl: string, flow: PortalFlow): Promise<string | undefined>;
  /**
   * Adds metered usage to the subscription's customer, billed in arrears. Repeating a report with the
   * same identifier adds nothing more: the processor dedupes on it.
   */
  reportUsage(u: UsageReport): Promise<void>;
}

export interface UsageReport {
  /** Deterministic per office, period and stretch: the processor's dedupe key. */
  identifier: string;
  subscriptionRef: string;
  /** Thousandths of a credit. */
  quantity: number;
  /** When the usage happened (epoch ms), inside its period, so it lands on that period's invoice. */
  timestamp: number;
}

export interface SubscriptionState {
  status: SubscriptionStatus;
  trialEnd: number | null;
}

export interface SubscriptionChange {
  subscription: Pick<SubscriptionRecord, 'processorRef' | 'accountId' | 'status' | 'trialEnd'>;
  sessionId: string;
  lines: readonly PricedLine[];
}

export interface ChangedSubscription {
  subscriptionStatus: 'trialing' | 'active';
  trialEnd: number | null;
}

export const REFERENCE_PLACEHOLDER = '{REFERENCE}';
