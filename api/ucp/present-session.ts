// Pure: a checkout session as a UCP checkout response at the negotiated version (valid against its schema).
import { buyerWire } from '../commerce/buyer-input.ts';
import type { PresentContext } from '../commerce/checkout-adapter.ts';
import type { PricedLine } from '../commerce/checkout-pricing.ts';
import {
  type CheckoutSession,
  type CheckoutStatus,
  orderIdOf,
  orderPermalink,
} from '../commerce/checkout-session.ts';
import { type SessionNote, sessionNotes } from '../commerce/checkout-terms.ts';
import type {
  UcpCheckout,
  UcpErrorMessage,
  UcpLineItem,
  UcpMessage,
  UcpPaymentHandler,
  UcpResponseBlock,
} from './checkout-schema.ts';
import type { Negotiated } from './negotiate.ts';
import {
  CHECKOUT_CAPABILITY,
  HOSTED_BILLING_HANDLER,
  HOSTED_BILLING_HANDLER_ID,
  type UcpVersion,
} from './versions.ts';

export interface UcpContext extends PresentContext {
  /** Where the hosted billing payment handler is specified. */
  handlerSpecUrl: string;
}

// UCP has no not_ready or expired: a cart that cannot be bought is `incomplete`, an expired session `canceled`.
const statusFor: Record<CheckoutStatus, UcpCheckout['status']> = {
  not_ready_for_payment: 'incomplete',
  ready_for_payment: 'ready_for_complete',
  requires_escalation: 'requires_escalation',
  completed: 'completed',
  canceled: 'canceled',
  expired: 'canceled',
};

export function hostedBillingHandler(version: UcpVersion, specUrl: string): UcpPaymentHandler {
  const handler: UcpPaymentHandler = {
    id: HOSTED_BILLING_HANDLER_ID,
    version,
    spec: specUrl,
    // The instrument is the hosted checkout itself: the owner pays there, never through the API.
    config: { instrument: 'hosted_checkout', delegated_credentials: false },
  };
  if (version !== '2026-01-23') handler.available_instruments = [{ type: 'hosted_checkout' }];
  return handler;
}

export function ucpBlock(n: Negotiated, specUrl: string): UcpResponseBlock {
  return {
    version: n.version,
    ...(n.version !== '2026-01-23' ? { status: 'success' as const } : {}),
    capabilities: { [CHECKOUT_CAPABILITY]: [{ version: n.checkoutVersion }] },
    payment_handlers: { [HOSTED_BILLING_HANDLER]: [hostedBillingHandler(n.version, specUrl)] },
  };
}

function lineItem(l: PricedLine): UcpLineItem {
  return {
    id: l.id,
    item: { id: l.itemId, title: l.name, price: l.unitAmount },
    quantity: l.quantity,
    totals: [
      { type: 'subtotal', display_text: 'Subtotal', amount: l.amount },
      { type: 'total', display_text: 'Total', amount: l.amount },
    ],
  };
}

function problemMessage(s: CheckoutSession, note: SessionNote): UcpErrorMessage {
  const problem = s.cart.problems[note.problemIndex ?? -1];
  const m: UcpErrorMessage = {
    type: 'error',
    code: problem?.code ?? 'invalid',
    content: note.text,
    severity: 'recoverable',
  };
  const index = problem?.itemId ? s.cart.lines.findIndex((l) => l.itemId === problem.itemId) : -1;
  if (index >= 0)
    m.path = problem?.field === 'quantity' ? `$.line_items[${index}].quantity` : `$.line_items[${index}]`;
  return m;
}

function message(s: CheckoutSession, note: SessionNote): UcpMessage {
  if (note.kind === 'problem') return problemMessage(s, note);
  if (note.kind === 'handoff' && s.status === 'requires_escalation') {
    // An error with a requires_* severity is what puts a UCP checkout in requires_escalation.
    return {
      type: 'error',
      code: 'payment_handoff',
      content: note.text,
      severity: 'requires_buyer_input',
      path: '$.continue_url',
    };
  }
  if (note.kind === 'outcome' && s.status === 'expired')
    return { type: 'info', code: 'expired', content: note.text };
  return { type: 'info', content: note.text };
}

export function presentUcpSession(s: CheckoutSession, n: Negotiated, ctx: UcpContext): UcpCheckout {
  const buyer = s.buyer ? buyerWire(s.buyer) : {};
  const per = s.cart.interval === 'year' ? 'per year' : 'per month';
  const body: UcpCheckout = {
    ucp: ucpBlock(n, ctx.handlerSpecUrl),
    id: s.id,
    status: statusFor[s.status],
    currency: 'USD',
    line_items: s.cart.lines.map(lineItem),
    ...(Object.keys(buyer).length > 0 ? { buyer } : {}),
    totals: [
      { type: 'subtotal', display_text: 'Subtotal', amount: s.cart.subtotal },
      { type: 'total', display_text: `Total ${per} after the trial`, amount: s.cart.total },
    ],
    messages: sessionNotes(s, ctx.continueUrl, ctx.now, { sandbox: ctx.sandbox ?? false }).map((note) =>
      message(s, note),
    ),
    links: [
      { type: 'terms_of_service', url: ctx.termsUrl, title: 'Terms of service' },
      { type: 'privacy_policy', url: ctx.privacyUrl, title: 'Privacy policy' },
    ],
    expires_at: new Date(s.expiresAt).toISOString(),
    continue_url: ctx.continueUrl,
  };
  if (s.order)
    body.order = { id: orderIdOf(s.order), permalink_url: orderPermalink(ctx.accountUrl, s.order) };
  return body;
}
