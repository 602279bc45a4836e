// What happens when the owner comes back from the payment processor: the hand-off must be theirs and
// for this session, the processor must say it is complete; then the account's subscription and the
// checkout's order are recorded and the session becomes `completed`.
import type { Storage } from '../../app-storage.ts';
import { randomHex } from '../../shared/random-id.ts';
import type { BillingHandoff } from '../billing-handoffs-repo.ts';
import type { CheckoutService } from '../checkout-service.ts';
import { type CheckoutProtocol, type CheckoutSession, finishSession } from '../checkout-session.ts';
import type { OrderEvents } from '../order-webhooks/order-events.ts';
import type { OrderRecord } from '../orders-repo.ts';
import type { PaymentProcessor } from '../processors/processor.ts';
import { type SubscriptionRecord, SubscriptionsRepo } from '../subscriptions-repo.ts';

export type FinishOutcome =
  | { outcome: 'completed'; subscription: SubscriptionRecord; order: OrderRecord }
  | {
      outcome:
        | 'open'
        | 'expired'
        | 'awaiting_payment'
        | 'not_yours'
        | 'not_found'
        | 'finished_by_another'
        | 'already_subscribed';
    };

export const protocolOf = (sessionId: string): CheckoutProtocol =>
  sessionId.startsWith('ucs_') ? 'ucp' : 'acp';

// The session is already written by the time anyone renders it again, so this move stores no response.
const noResponse = () => ({ statusCode: 200, headers: {}, body: '' });

const newId = (prefix: string) => `${prefix}_${randomHex(12)}`;

/** What a finished session bought: its plan, interval and every line at the price it was bought at. */
function purchaseOf(s: CheckoutSession) {
  const plan = s.cart.lines.find((l) => l.kind === 'plan');
  return {
    plan: plan?.plan ?? 'unknown',
    interval: plan?.interval ?? 'month',
    items: s.cart.lines.map((l) => ({ itemId: l.itemId, quantity: l.quantity, unitAmount: l.unitAmount })),
  };
}

function subscriptionFor(
  s: CheckoutSession,
  accountId: string,
  confirmed: { subscriptionRef: string; subscriptionStatus: 'trialing' | 'active'; trialEnd: number | null },
  processor: PaymentProcessor,
  existing: SubscriptionRecord | undefined,
  now: number,
): SubscriptionRecord {
  return {
    id: existing?.id ?? newId('sub'),
    accountId,
    checkoutSessionId: s.id,
    status: confirmed.subscriptionStatus,
    ...purchaseOf(s),
    trialEnd: confirmed.trialEnd,
    processor: processor.name,
    processorRef: confirmed.subscriptionRef,
    testMode: processor.testMode,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
}

function orderFor(
  s: CheckoutSession,
  subscription: SubscriptionRecord,
  from: SubscriptionRecord | undefined,
  now: number,
): OrderRecord {
  return {
    id: newId('ord'),
    accountId: subscription.accountId,
    checkoutSessionId: s.id,
    subscriptionId: subscription.id,
    kind: from ? 'change' : 'subscribe',
    ...purchaseOf(s),
    ...(from ? { from: { plan: from.plan, interval: from.interval } } : {}),
    trialEnd: subscription.trialEnd,
    createdAt: now,
    ...(s.platformId ? { platformId: s.platformId } : {}),
  };
}

/** Records the order (once per session) and completes the session with it. */
async function complete(
  deps: { storage: Storage; checkout: CheckoutService; events: OrderEvents },
  session: CheckoutSession,
  subscription: SubscriptionRecord,
  from: SubscriptionRecord | undefined,
  now: number,
): Promise<FinishOutcome> {
  const { storage, checkout, events } = deps;
  // The order and its webhook events in one transaction: a crash keeps both or neither.
  const order = await storage.orders.record(
    orderFor(session, subscription, from, now),
    events.onOrder(from?.checkoutSessionId),
  );
  await events.announce();
  await checkout.move(
    session.protocol,
    session.id,
    (s, at) =>
      finishSession(
        s,
        {
          orderId: order.id,
          subscriptionId: subscription.id,
          accountId: order.accountId,
          trialEnd: order.trialEnd,
        },
        at,
      ),
    noResponse,
  );
  return { outcome: 'completed', subscription, order };
}

/** Cancels once: redeliveries and returns after the cancel find it recorded on the hand-off. */
async function cancelLatePayment(
  storage: Storage,
  processor: PaymentProcessor,
  handoff: BillingHandoff,
  confirmed: { subscriptionRef: string; details: Record<string, unknown> },
  now: number,
  because: 'finished_by_another' | 'already_subscribed',
): Promise<void> {
  if (handoff.data.canceled_subscription === confirmed.subscriptionRef) return;
  await processor.cancelSubscription(confirmed.subscriptionRef);
  await storage.billingHandoffs.complete(
    handoff.reference,
    {
      ...handoff.data,
      ...confirmed.details,
      canceled_subscription: confirmed.subscriptionRef,
      canceled_because: because,
    },
    now,
  );
}

export async function finishCheckout(deps: {
  storage: Storage;
  checkout: CheckoutService;
  processor: PaymentProcessor;
  events: OrderEvents;
  sessionId: string;
  reference: string;
  accountId: string;
  now: number;
}): Promise<FinishOutcome> {
  const { storage, checkout, processor, sessionId, reference, accountId, now } = deps;
  const handoff = await storage.billingHandoffs.get(reference);
  if (!handoff || handoff.checkoutSessionId !== sessionId || handoff.accountId !== accountId)
    return { outcome: 'not_yours' };
  const confirmed = await processor.confirm(reference);
  if (confirmed.status !== 'complete') return { outcome: confirmed.status };
  const protocol = protocolOf(sessionId);
  const session = await checkout.get(protocol, sessionId);
  if (!session) return { outcome: 'not_found' };
  // The owner has paid: the subscription is recorded even if an agent canceled the session meanwhile.
  const finished = await storage.orders.bySession(sessionId);
  // One checkout buys one subscription: a second account paying for it too is not recorded over it,
  // and the subscription the processor opened for them is canceled so it never bills them.
  if (finished && finished.accountId !== accountId) {
    await cancelLatePayment(storage, processor, handoff, confirmed, now, 'finished_by_another');
    return { outcome: 'finished_by_another' };
  }
  const current = await storage.subscriptions.ofAccount(accountId);
  if (finished && current) return { outcome: 'completed', subscription: current, order: finished };
  // One subscription per account: a plan bought at the processor while another is live (two hosted
  // checkouts started before either finished) is canceled, never left billing beside the first.
  if (SubscriptionsRepo.live(current) && current.processorRef !== confirmed.subscriptionRef) {
    await cancelLatePayment(storage, processor, handoff, confirmed, now, 'already_subscribed');
    return { outcome: 'already_subscribed' };
  }
  const subscription = await storage.subscriptions.record(
    subscriptionFor(session, accountId, confirmed, processor, current, now),
  );
  if (handoff.status !== 'complete')
    await storage.billingHandoffs.complete(reference, { ...handoff.data, ...confirmed.details }, now);
  return complete(deps, session, subscription, undefined, now);
}

/**
 * A checkout finished by an account that already has a live subscription changes that subscription at
 * the processor (which prorates) instead of opening a second one. A repeated confirm is the first.
 */
export async function changePlan(deps: {
  storage: Storage;
  checkout: CheckoutService;
  processor: PaymentProcessor;
  events: OrderEvents;
  session: CheckoutSession;
  current: SubscriptionRecord;
  now: number;
}): Promise<FinishOutcome> {
  const { storage, processor, session, current, now } = deps;
  const finished = await storage.orders.bySession(session.id);
  if (finished) {
    if (finished.accountId !== current.accountId) return { outcome: 'finished_by_another' };
    return { outcome: 'completed', subscription: current, order: finished };
  }
  const changed = await processor.changeSubscription({
    subscription: current,
    sessionId: session.id,
    lines: session.cart.lines,
  });
  const subscription = await storage.subscriptions.record({
    ...current,
    checkoutSessionId: session.id,
    status: changed.subscriptionStatus,
    ...purchaseOf(session),
    trialEnd: changed.trialEnd,
    updatedAt: now,
  });
  return complete(deps, session, subscription, current, now);
}
