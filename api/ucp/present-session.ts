// Pure: a checkout session as a UCP checkout response at the negotiated version (valid against its schema).
import { buyerWire } from '../commerce/buyer-input.ts';
import type { PresentContext } from '../commerce/checkout-adapter.ts';
import type { PricedLine } from '../commerce/checkout-pricing.ts';
import type { CheckoutSession, CheckoutStatus } from '../commerce/checkout-session.ts';
import { type SessionNote, sessionNotes } from '../commerce/checkout-terms.ts';
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

type Json = Record<string, unknown>;

// UCP has no not_ready or expired: a cart that cannot be bought is `incomplete`, an expired session `canceled`.
const statusFor: Record<CheckoutStatus, string> = {
  not_ready_for_payment: 'incomplete',
  ready_for_payment: 'ready_for_complete',
  requires_escalation: 'requires_escalation',
  completed: 'completed',
  canceled: 'canceled',
  expired: 'canceled',
};

export function hostedBillingHandler(version: UcpVersion, specUrl: string): Json {
  const handler: Json = {
    id: HOSTED_BILLING_HANDLER_ID,
    version,
    spec: specUrl,
    // The instrument is the hosted checkout itself: the owner pays there, never through the API.
    config: { instrument: 'hosted_checkout', delegated_credentials: false },
  };
  if (version !== '2026-01-23') handler.available_instruments = [{ type: 'hosted_checkout' }];
  return handler;
}

export function ucpBlock(n: Negotiated, specUrl: string): Json {
  const block: Json = { version: n.version };
  if (n.version !== '2026-01-23') block.status = 'success';
  block.capabilities = { [CHECKOUT_CAPABILITY]: [{ version: n.checkoutVersion }] };
  block.payment_handlers = { [HOSTED_BILLING_HANDLER]: [hostedBillingHandler(n.version, specUrl)] };
  return block;
}

function lineItem(l: PricedLine): Json {
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

function problemMessage(s: CheckoutSession, note: SessionNote): Json {
  const problem = s.cart.problems[note.problemIndex ?? -1];
  const m: Json = {
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

function message(s: CheckoutSession, note: SessionNote): Json {
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

export function presentUcpSession(s: CheckoutSession, n: Negotiated, ctx: UcpContext): Json {
  const body: Json = {
    ucp: ucpBlock(n, ctx.handlerSpecUrl),
    id: s.id,
    status: statusFor[s.status],
    currency: 'USD',
    line_items: s.cart.lines.map(lineItem),
  };
  if (s.buyer && Object.keys(buyerWire(s.buyer)).length > 0) body.buyer = buyerWire(s.buyer);
  body.totals = [
    { type: 'subtotal', display_text: 'Subtotal', amount: s.cart.subtotal },
    {
      type: 'total',
      display_text:
        s.cart.interval === 'year' ? 'Total per year after the trial' : 'Total per month after the trial',
      amount: s.cart.total,
    },
  ];
  body.messages = sessionNotes(s, ctx.continueUrl, ctx.now, { sandbox: ctx.sandbox ?? false }).map((note) =>
    message(s, note),
  );
  body.links = [
    { type: 'terms_of_service', url: ctx.termsUrl, title: 'Terms of service' },
    { type: 'privacy_policy', url: ctx.privacyUrl, title: 'Privacy policy' },
  ];
  body.expires_at = new Date(s.expiresAt).toISOString();
  body.continue_url = ctx.continueUrl;
  if (s.order) body.order = { id: s.order.subscriptionId, permalink_url: ctx.accountUrl };
  return body;
}
