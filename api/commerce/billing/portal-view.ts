// Loads what the plan page shows for one account: Colony's record of its subscription and orders, the
// processor's description of it (kept in step with Colony's record as it is read), and usage when a
// metering domain renders it.
import type { FastifyBaseLogger } from 'fastify';
import { planItemId } from '../../domain/pricing/catalog.ts';
import type { PriceList } from '../../domain/pricing/price-list.ts';
import type { CommerceOptions } from '../commerce-services.ts';
import type { SubscriptionDescription } from '../processors/subscription-description.ts';
import type { SubscriptionRecord } from '../subscriptions-repo.ts';
import type { PortalView } from './account-portal-page.ts';
import type { PlanChoice } from './portal-actions.ts';

/** Usage this period for the plan page (HTML), rendered by the metering domain; optional. */
export type UsageSection = (accountId: string) => Promise<string | undefined>;

export interface PortalDeps
  extends Pick<CommerceOptions, 'config' | 'storage' | 'commerce' | 'prices' | 'now'> {
  usageSection?: UsageSection;
}

/** Every plan in the price list, monthly and annual: what the change form offers. */
export function planChoices(prices: PriceList): PlanChoice[] {
  return prices.plans.flatMap((p) => [
    { itemId: planItemId(p.slug, 'monthly'), plan: p.slug, interval: 'month' as const },
    { itemId: planItemId(p.slug, 'annual'), plan: p.slug, interval: 'year' as const },
  ]);
}

/**
 * The processor's view of the subscription. A standing that differs from Colony's record is written
 * back (as a webhook would: the later read wins), so an end the processor reached is not missed.
 */
async function described(
  deps: PortalDeps,
  s: SubscriptionRecord,
  log: FastifyBaseLogger,
): Promise<{ description?: SubscriptionDescription; subscription: SubscriptionRecord; down: boolean }> {
  const { processor } = deps.commerce;
  // Bought through another processor than the one configured now: only Colony's record is known.
  if (s.processor !== processor.name) return { subscription: s, down: false };
  const readAt = deps.now();
  let description: SubscriptionDescription;
  try {
    description = await processor.describeSubscription(s);
  } catch (err) {
    log.error({ err, processor: processor.name }, 'payment processor could not describe a subscription');
    return { subscription: s, down: true };
  }
  const state = { status: description.status, trialEnd: description.trialEnd };
  if (state.status === s.status && state.trialEnd === s.trialEnd)
    return { description, subscription: s, down: false };
  // As a Stripe subscription event does: the ACP order_update is written with the change, once.
  const events = deps.commerce.orderEvents;
  const written = await deps.storage.subscriptions.sync(s.id, state, readAt, events.onStatusChanged);
  if (written) await events.announce();
  return { description, subscription: written ? { ...s, ...state } : s, down: false };
}

export type LoadedPortal = Omit<PortalView, 'csrf' | 'focus' | 'notice'>;

export async function loadPortal(
  deps: PortalDeps,
  accountId: string,
  log: FastifyBaseLogger,
): Promise<LoadedPortal> {
  const { storage, commerce, prices } = deps;
  const [stored, orders, usage] = await Promise.all([
    storage.subscriptions.ofAccount(accountId),
    storage.orders.ofAccount(accountId),
    deps.usageSection?.(accountId),
  ]);
  const read = stored ? await described(deps, stored, log) : undefined;
  return {
    subscription: read?.subscription,
    orders,
    description: read?.description,
    processorDown: read?.down ?? false,
    hostedPortal: commerce.processor.name === 'stripe',
    testMode: commerce.processor.testMode,
    plans: planChoices(prices),
    ...(usage ? { usageSection: usage } : {}),
  };
}
