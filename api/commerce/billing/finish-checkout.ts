// What happens when the owner comes back from the payment processor: the hand-off must be theirs and
// for this session, the processor must say it is complete; then the subscription is recorded and the
// session becomes `completed`.
import { randomBytes } from 'node:crypto';
import type { Storage } from '../../app-storage.ts';
import type { BillingHandoff } from '../billing-handoffs-repo.ts';
import type { CheckoutService } from '../checkout-service.ts';
import { type CheckoutProtocol, type CheckoutSession, finishSession } from '../checkout-session.ts';
import type { PaymentProcessor } from '../processors/processor.ts';
import type { SubscriptionRecord } from '../subscriptions-repo.ts';

export type FinishOutcome =
  | { outcome: 'completed'; subscription: SubscriptionRecord }
  | {
      outcome: 'open' | 'expired' | 'awaiting_payment' | 'not_yours' | 'not_found' | 'finished_by_another';
    };

export const protocolOf = (sessionId: string): CheckoutProtocol =>
  sessionId.startsWith('ucs_') ? 'ucp' : 'acp';

// The session is already written by the time anyone renders it again, so this move stores no response.
const noResponse = () => ({ statusCode: 200, headers: {}, body: '' });

function subscriptionFor(
  s: CheckoutSession,
  accountId: string,
  confirmed: { subscriptionRef: string; subscriptionStatus: 'trialing' | 'active'; trialEnd: number | null },
  processor: PaymentProcessor,
  existing: SubscriptionRecord | undefined,
  now: number,
): SubscriptionRecord {
  const plan = s.cart.lines.find((l) => l.kind === 'plan');
  return {
    id: existing?.id ?? `sub_${randomBytes(12).toString('hex')}`,
    accountId,
    checkoutSessionId: s.id,
    status: confirmed.subscriptionStatus,
    plan: plan?.plan ?? 'unknown',
    interval: plan?.interval ?? 'month',
    items: s.cart.lines.map((l) => ({ itemId: l.itemId, quantity: l.quantity, unitAmount: l.unitAmount })),
    trialEnd: confirmed.trialEnd,
    processor: processor.name,
    processorRef: confirmed.subscriptionRef,
    testMode: processor.testMode,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
}

/** Cancels once: redeliveries and returns after the cancel find it recorded on the hand-off. */
async function cancelLatePayment(
  storage: Storage,
  processor: PaymentProcessor,
  handoff: BillingHandoff,
  confirmed: { subscriptionRef: string; details: Record<string, unknown> },
  now: number,
): Promise<void> {
  if (handoff.data.canceled_subscription === confirmed.subscriptionRef) return;
  await processor.cancelSubscription(confirmed.subscriptionRef);
  await storage.billingHandoffs.complete(
    handoff.reference,
    {
      ...handoff.data,
      ...confirmed.details,
      canceled_subscription: confirmed.subscriptionRef,
      canceled_because: 'finished_by_another',
    },
    now,
  );
}

export async function finishCheckout(deps: {
  storage: Storage;
  checkout: CheckoutService;
  processor: PaymentProcessor;
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
  const existing = await storage.subscriptions.bySession(sessionId);
  // One checkout buys one subscription: a second account paying for it too is not recorded over it,
  // and the subscription the processor opened for them is canceled so it never bills them.
  if (existing && existing.accountId !== accountId) {
    await cancelLatePayment(storage, processor, handoff, confirmed, now);
    return { outcome: 'finished_by_another' };
  }
  const subscription = await storage.subscriptions.record(
    subscriptionFor(session, accountId, confirmed, processor, existing, now),
  );
  if (handoff.status !== 'complete')
    await storage.billingHandoffs.complete(reference, { ...handoff.data, ...confirmed.details }, now);
  await checkout.move(
    protocol,
    sessionId,
    (s, at) =>
      finishSession(s, { subscriptionId: subscription.id, accountId, trialEnd: subscription.trialEnd }, at),
    noResponse,
  );
  return { outcome: 'completed', subscription };
}
