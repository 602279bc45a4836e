// Pure: why the checkout flow turns a request down, in protocol-neutral terms, and the template parameters,
// JSONPath and headers each refusal is answered with; each protocol's adapter picks the wire code.
import type { MessageParams } from '../shared/error-catalogue.ts';
import type { RequestedItem } from './checkout-pricing.ts';
import type { CheckoutSession, CheckoutStatus } from './checkout-session.ts';

/** The items a body asks for and the field they came in (`line_items`, or ACP's older `items`). */
export interface ItemsRequest {
  items: RequestedItem[];
  field: 'line_items' | 'items';
}

export type Refusal =
  | { reason: 'rate_limited'; limit: number; seconds: number }
  | { reason: 'not_found'; id: string }
  | { reason: 'final'; id: string; status: CheckoutStatus }
  | { reason: 'not_ready'; id: string; session: CheckoutSession }
  | {
      reason: 'unknown_items';
      unknownItems: { index: number; itemId: string }[];
      field: ItemsRequest['field'];
    }
  | { reason: 'idempotency_key_invalid' }
  | { reason: 'idempotency_conflict' }
  | { reason: 'idempotency_in_flight'; retryAfterSeconds: number };

export type RefusalReason = Refusal['reason'];

export interface RefusalDetails {
  params: MessageParams;
  /** JSONPath of the field the refusal is about (ACP `param`, UCP `path`). */
  at?: string;
  headers?: Record<string, string>;
}

function unknownItemsDetails(r: Extract<Refusal, { reason: 'unknown_items' }>): RefusalDetails {
  const first = r.unknownItems[0] ?? { index: 0, itemId: '' };
  return {
    params: { ids: r.unknownItems.map((u) => `'${u.itemId}'`).join(', '), first: first.itemId },
    at: r.field === 'line_items' ? `$.line_items[${first.index}].item.id` : `$.items[${first.index}].id`,
  };
}

export function refusalDetails(r: Refusal): RefusalDetails {
  switch (r.reason) {
    case 'rate_limited':
      return { params: { limit: r.limit, seconds: r.seconds } };
    case 'not_found':
      return { params: { id: r.id } };
    case 'final':
      return { params: { id: r.id, status: r.status } };
    case 'not_ready':
      return { params: { id: r.id, problems: r.session.cart.problems.map((p) => p.message).join(' ') } };
    case 'unknown_items':
      return unknownItemsDetails(r);
    case 'idempotency_in_flight':
      return { params: {}, headers: { 'retry-after': String(r.retryAfterSeconds) } };
    default:
      return { params: {} };
  }
}
