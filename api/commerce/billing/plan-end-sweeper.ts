// Ends the test processor's plans whose cancel date has passed, without waiting for anyone to open the
// plan page: Colony's record (which entitlements read) turns `canceled` through the same guarded write
// as a Stripe subscription event, with the ACP order_update in its transaction.
import type { FastifyBaseLogger } from 'fastify';
import { intervalPoller } from '../../shared/interval-poller.ts';
import type { Poller } from '../../shared/poller-gate.ts';
import type { BillingHandoffsRepo } from '../billing-handoffs-repo.ts';
import type { OrderEvents } from '../order-webhooks/order-events.ts';
import { cancelAtOf } from '../processors/test-processor-billing.ts';
import type { SubscriptionRecord, SubscriptionsRepo } from '../subscriptions-repo.ts';

export interface PlanEndDeps {
  subscriptions: SubscriptionsRepo;
  handoffs: BillingHandoffsRepo;
  events: OrderEvents;
  now: () => number;
}

/** Pure: the state the test processor reports once a pending cancel fell due, else none. */
export function endedState(
  s: SubscriptionRecord,
  cancelAt: number | null,
  now: number,
): { status: 'canceled'; trialEnd: number | null } | undefined {
  return cancelAt !== null && cancelAt <= now ? { status: 'canceled', trialEnd: s.trialEnd } : undefined;
}

/**
 * Writes `canceled` for every live test-processor subscription whose cancel fell due; answers how many
 * changed. A plan page that wrote it first, or a cancel taken back in time, leaves nothing to do.
 */
export async function endDuePlans(d: PlanEndDeps): Promise<{ ended: number }> {
  let ended = 0;
  for (const s of await d.subscriptions.liveOf('test')) {
    const readAt = d.now();
    const state = endedState(s, cancelAtOf(await d.handoffs.get(s.processorRef)), readAt);
    if (state && (await d.subscriptions.sync(s.id, state, readAt, d.events.onStatusChanged))) ended++;
  }
  if (ended > 0) await d.events.announce();
  return { ended };
}

/** The sweep as a cluster-wide poller (attach it to the PollerGate). */
export function planEndSweeper(d: PlanEndDeps & { everyMs: number; log: FastifyBaseLogger }): Poller {
  return intervalPoller({
    everyMs: d.everyMs,
    pass: () => endDuePlans(d),
    name: 'plan end sweep',
    log: d.log,
  });
}
