// Pure: the protocol-neutral checkout session both ACP and UCP present, and the moves between its states.
import type { PricedCart } from './checkout-pricing.ts';

/** ACP's names; UCP's presenter maps them onto its own (docs/commerce.md has the table). */
export const checkoutStatuses = [
  'not_ready_for_payment',
  'ready_for_payment',
  'requires_escalation',
  'completed',
  'canceled',
  'expired',
] as const;
export type CheckoutStatus = (typeof checkoutStatuses)[number];

export const finalStatuses: ReadonlySet<CheckoutStatus> = new Set(['completed', 'canceled', 'expired']);

export type CheckoutProtocol = 'acp' | 'ucp';

/** Six hours, for both protocols (spec part 8). */
export const SESSION_TTL_MS = 6 * 60 * 60 * 1000;

export interface Buyer {
  email?: string;
  firstName?: string;
  lastName?: string;
  fullName?: string;
  phoneNumber?: string;
}

/** What the owner's finish at continue_url left on the session. */
export interface CheckoutOrder {
  /** The order's own id; sessions finished before orders had one are named by their subscription. */
  orderId?: string;
  subscriptionId: string;
  accountId: string;
  trialEnd: number | null;
}

/** The id an agent was given for a finished checkout's order. */
export const orderIdOf = (o: CheckoutOrder): string => o.orderId ?? o.subscriptionId;

/** An order's permalink (`permalink_url`): the owner's plan page, opened on that order. */
export const orderPermalink = (accountUrl: string, o: CheckoutOrder): string =>
  `${accountUrl}/orders/${encodeURIComponent(orderIdOf(o))}`;

export interface CheckoutSession {
  id: string;
  protocol: CheckoutProtocol;
  status: CheckoutStatus;
  cart: PricedCart;
  buyer: Buyer | null;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
  /** When complete handed the session to the owner; an update keeps the hand-off in force. */
  escalatedAt: number | null;
  order: CheckoutOrder | null;
  /** The agent platform whose API key created the session (api/commerce/order-webhooks). */
  platformId?: string;
  /** Bumped on every write; writes check it so concurrent moves never interleave. */
  revision: number;
}

export function isFinal(status: CheckoutStatus): boolean {
  return finalStatuses.has(status);
}

/** The status a live session has for its cart: a cart that cannot be bought is not ready for payment. */
function liveStatus(cart: PricedCart, escalatedAt: number | null): CheckoutStatus {
  if (cart.problems.length > 0) return 'not_ready_for_payment';
  return escalatedAt === null ? 'ready_for_payment' : 'requires_escalation';
}

export function newSession(input: {
  id: string;
  protocol: CheckoutProtocol;
  cart: PricedCart;
  buyer: Buyer | null;
  now: number;
  platformId?: string | undefined;
}): CheckoutSession {
  return {
    id: input.id,
    protocol: input.protocol,
    status: liveStatus(input.cart, null),
    cart: input.cart,
    buyer: input.buyer,
    createdAt: input.now,
    updatedAt: input.now,
    expiresAt: input.now + SESSION_TTL_MS,
    escalatedAt: null,
    order: null,
    ...(input.platformId ? { platformId: input.platformId } : {}),
    revision: 1,
  };
}

/** Why a move was refused: the session is final, or (complete only) its cart cannot be bought. */
export type MoveRefusal = { refused: 'final'; status: CheckoutStatus } | { refused: 'not_ready' };

export type MoveResult = { session: CheckoutSession } | MoveRefusal;

const touched = (s: CheckoutSession, now: number, patch: Partial<CheckoutSession>): CheckoutSession => ({
  ...s,
  ...patch,
  updatedAt: now,
  revision: s.revision + 1,
});

/** A session past its expiry becomes `expired`; final sessions never move. */
export function expireIfDue(s: CheckoutSession, now: number): CheckoutSession {
  if (isFinal(s.status) || now < s.expiresAt) return s;
  return touched(s, now, { status: 'expired' });
}

/** Update replaces the cart and/or buyer given; the status follows the new cart. */
export function updateSession(
  s: CheckoutSession,
  change: { cart?: PricedCart; buyer?: Buyer | null },
  now: number,
): MoveResult {
  if (isFinal(s.status)) return { refused: 'final', status: s.status };
  const cart = change.cart ?? s.cart;
  const buyer = change.buyer === undefined ? s.buyer : change.buyer;
  return { session: touched(s, now, { cart, buyer, status: liveStatus(cart, s.escalatedAt) }) };
}

/** Complete hands the purchase to the owner: no payment is taken, the session waits at continue_url. */
export function completeSession(
  s: CheckoutSession,
  buyer: Buyer | null | undefined,
  now: number,
): MoveResult {
  if (isFinal(s.status)) return { refused: 'final', status: s.status };
  if (s.cart.problems.length > 0) return { refused: 'not_ready' };
  return {
    session: touched(s, now, {
      buyer: buyer === undefined ? s.buyer : buyer,
      status: 'requires_escalation',
      escalatedAt: s.escalatedAt ?? now,
    }),
  };
}

export function cancelSession(s: CheckoutSession, now: number): MoveResult {
  if (isFinal(s.status)) return { refused: 'final', status: s.status };
  return { session: touched(s, now, { status: 'canceled' }) };
}

/** The owner paid (or started the trial) at continue_url: the only way into `completed`. */
export function finishSession(s: CheckoutSession, order: CheckoutOrder, now: number): MoveResult {
  if (isFinal(s.status)) return { refused: 'final', status: s.status };
  if (s.cart.problems.length > 0) return { refused: 'not_ready' };
  return {
    session: touched(s, now, { status: 'completed', order, escalatedAt: s.escalatedAt ?? now }),
  };
}
