// Order events for agent platforms, written as jobs in the transaction of the change that causes them
// (an outbox): an order recorded, or its subscription's status changed. The body is rendered once, here
// (by the protocol's renderer, in the platform's version), so every attempt sends the same bytes under
// the same event id.
import { z } from 'zod';
import { insertJob, type JobsRepo } from '../../domain/jobs/jobs-repo.ts';
import { randomHex } from '../../shared/random-id.ts';
import type { SqlExecutor } from '../../storage/sql-driver.ts';
import { type OnOrderInserted, type OrderRecord, orderOfSession } from '../orders-repo.ts';
import type { OnStatusChanged, SubscriptionStatus } from '../subscriptions-repo.ts';
import { platformWithSecret } from './platforms-repo.ts';

export const ORDER_WEBHOOK_JOB = 'acp.order_webhook';

export type OrderEventType = 'order_create' | 'order_update';

/** The statuses Colony sends (ACP's names; both exist in every ACP version). */
export type OrderEventStatus = 'confirmed' | 'canceled';

/** What an event says, before a protocol shapes it. */
export interface OrderEventFacts {
  type: OrderEventType;
  orderId: string;
  checkoutSessionId: string;
  permalinkUrl: string;
  status: OrderEventStatus;
  lines: { itemId: string; title: string; quantity: number; unitAmount: number }[];
}

/** The wire body for a platform's protocol version (api/acp/webhooks/order-event.ts). */
export type RenderOrderEvent = (facts: OrderEventFacts, version: string) => unknown;

/** A job's input: the event id receivers dedupe on, where it goes, and the exact body. */
export const orderWebhookInput = z.strictObject({
  eventId: z.string().min(1),
  platformId: z.string().min(1),
  body: z.string().min(1),
});
export type OrderWebhookInput = z.infer<typeof orderWebhookInput>;

/** An order's ACP status follows its subscription: canceled once that is, confirmed until then. */
export const orderStatusOf = (status: SubscriptionStatus): OrderEventStatus =>
  status === 'canceled' ? 'canceled' : 'confirmed';

export interface OrderEventsOptions {
  jobs: JobsRepo;
  /** The order's permalink (the owner's account page). */
  permalinkUrl: string;
  /** A catalog item's display name. */
  titleOf: (itemId: string) => string;
  render: RenderOrderEvent;
  maxAttempts: number;
  now: () => number;
}

export const newEventId = () => `evt_${randomHex(12)}`;

export class OrderEvents {
  private readonly o: OrderEventsOptions;

  constructor(o: OrderEventsOptions) {
    this.o = o;
  }

  /**
   * For orders.record: the new order's order_create; a plan change also tells the platform of the
   * order it replaces (the subscription's until now, found by its checkout) that it is canceled.
   */
  onOrder(replacedSessionId?: string): OnOrderInserted {
    return async (tx, order) => {
      await this.write(tx, order, 'order_create', 'confirmed');
      if (replacedSessionId === undefined || replacedSessionId === order.checkoutSessionId) return;
      const replaced = await orderOfSession(tx, replacedSessionId);
      if (replaced) await this.write(tx, replaced, 'order_update', 'canceled');
    };
  }

  /** For subscriptions.sync: the current order's order_update when its ACP status changed. */
  readonly onStatusChanged: OnStatusChanged = async (tx, subscription, before) => {
    const status = orderStatusOf(subscription.status);
    if (status === orderStatusOf(before)) return;
    const order = await orderOfSession(tx, subscription.checkoutSessionId);
    if (order) await this.write(tx, order, 'order_update', status);
  };

  /** After the transaction commits: wakes the job runners (a missed wake-up only delays delivery). */
  announce(): Promise<void> {
    return this.o.jobs.announce(this.o.now());
  }

  private async write(
    tx: SqlExecutor,
    order: OrderRecord,
    type: OrderEventType,
    status: OrderEventStatus,
  ): Promise<void> {
    if (!order.platformId) return;
    const platform = await platformWithSecret(tx, order.platformId);
    if (!platform) return;
    const body = this.o.render(
      {
        type,
        orderId: order.id,
        checkoutSessionId: order.checkoutSessionId,
        permalinkUrl: this.o.permalinkUrl,
        status,
        lines: order.items.map((i) => ({ ...i, title: this.o.titleOf(i.itemId) })),
      },
      platform.apiVersion,
    );
    const input: OrderWebhookInput = {
      eventId: newEventId(),
      platformId: platform.id,
      body: JSON.stringify(body),
    };
    await insertJob(tx, { type: ORDER_WEBHOOK_JOB, input, maxAttempts: this.o.maxAttempts }, this.o.now());
  }
}
