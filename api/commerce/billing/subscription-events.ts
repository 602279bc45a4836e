// Stripe's subscription events (a renewal that failed, a cancel in Stripe's dashboard, a trial that
// ended, a pause) keep Colony's record of the account's subscription in step. Like the checkout
// events, they are answered by reading the subscription from Stripe itself, so a redelivery or an
// event that arrives out of order changes nothing a later read has not already written.
import type Stripe from 'stripe';
import type { OrderEvents } from '../order-webhooks/order-events.ts';
import type { PaymentProcessor } from '../processors/processor.ts';
import type { SubscriptionsRepo } from '../subscriptions-repo.ts';

export const SUBSCRIPTION_EVENTS: ReadonlySet<string> = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'customer.subscription.trial_will_end',
  'customer.subscription.pending_update_applied',
  'customer.subscription.pending_update_expired',
]);

/** The Stripe subscription a verified event is about, when it is a subscription event. */
export function subscriptionEventOf(event: Stripe.Event): string | undefined {
  if (!SUBSCRIPTION_EVENTS.has(event.type)) return undefined;
  const id = (event.data?.object as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id.startsWith('sub_') ? id : undefined;
}

export type SyncOutcome = 'synced' | 'stale' | 'not_ours';

/**
 * Reads the subscription from the processor and records its state. `not_ours`: no account holds it
 * (yet: its checkout's own completion reads the state when it records it). `stale`: a sync that
 * started later has already written. Throws when the processor or the database cannot be reached.
 */
export async function syncSubscription(deps: {
  subscriptions: SubscriptionsRepo;
  processor: PaymentProcessor;
  /** A status change and its ACP order event are written in one transaction. */
  events: OrderEvents;
  subscriptionRef: string;
  now: () => number;
}): Promise<SyncOutcome> {
  const { subscriptions, processor, events, subscriptionRef, now } = deps;
  const record = await subscriptions.byProcessorRef(processor.name, subscriptionRef);
  if (!record) return 'not_ours';
  const readAt = now();
  const state = await processor.subscriptionState(subscriptionRef);
  if (!state) return 'not_ours';
  const written = await subscriptions.sync(record.id, state, readAt, events.onStatusChanged);
  if (written) await events.announce();
  return written ? 'synced' : 'stale';
}
