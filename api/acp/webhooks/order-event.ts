// Pure: an ACP order webhook body (`WebhookEvent`) as the endpoint's snapshot defines it. Until
// 2026-01-30 the order is a closed object with `refunds`; from 2026-04-17 it is the checkout spec's
// Order, so it carries its id and, as that version asks, the line items and totals.
import type { OrderEventFacts } from '../../commerce/order-webhooks/order-events.ts';
import { type AcpVersion, LATEST_ACP_VERSION, parseAcpVersion } from '../versions.ts';

/** `version` is the platform's, as stored; one no longer known gets the newest shape. */
export function acpOrderEvent(f: OrderEventFacts, stored: string): unknown {
  const parsed = parseAcpVersion(stored);
  const version: AcpVersion = typeof parsed === 'string' ? parsed : LATEST_ACP_VERSION;
  const common = {
    type: 'order',
    checkout_session_id: f.checkoutSessionId,
    permalink_url: f.permalinkUrl,
    status: f.status,
  };
  if (version !== '2026-04-17') return { type: f.type, data: { ...common, refunds: [] } };
  const total = f.lines.reduce((sum, l) => sum + l.unitAmount * l.quantity, 0);
  return {
    type: f.type,
    data: {
      ...common,
      id: f.orderId,
      line_items: f.lines.map((l) => ({
        id: l.itemId,
        title: l.title,
        product_id: l.itemId,
        quantity: { ordered: l.quantity },
        unit_price: l.unitAmount,
        subtotal: l.unitAmount * l.quantity,
      })),
      totals: [
        { type: 'subtotal', display_text: 'Subtotal', amount: total },
        { type: 'total', display_text: 'Total', amount: total },
      ],
    },
  };
}
