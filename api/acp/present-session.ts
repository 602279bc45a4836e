// Pure: a checkout session as the body of the requested ACP snapshot (each validates against its schema).
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
  AcpBuyer,
  AcpCheckoutSession,
  AcpLineItem,
  AcpLink,
  AcpMessage,
  AcpTotal,
} from './session-schema.ts';
import { type AcpShape, type AcpVersion, shapeOf } from './versions.ts';

/** The links and clock an ACP session body needs: exactly what every presenter gets. */
export type AcpContext = PresentContext;

// Before 2026-01-30 there is no requires_escalation or expired: the hand-off reads as in_progress, an
// expired session as canceled (its message says it expired).
function statusFor(status: CheckoutStatus, shape: AcpShape): AcpCheckoutSession['status'] {
  if (shape === 'v3') return status;
  if (status === 'requires_escalation') return 'in_progress';
  if (status === 'expired') return 'canceled';
  return status;
}

const iso = (ms: number) => new Date(ms).toISOString();

function lineTotals(l: PricedLine): AcpTotal[] {
  return [
    { type: 'items_base_amount', display_text: 'Base amount', amount: l.amount },
    { type: 'subtotal', display_text: 'Subtotal', amount: l.amount },
    { type: 'total', display_text: 'Total', amount: l.amount },
  ];
}

// Tax is assessed by the processor at continue_url, so the API reports none (the messages say so).
function lineItem(l: PricedLine, shape: AcpShape): AcpLineItem {
  if (shape === 'v3') {
    return {
      id: l.id,
      item: { id: l.itemId, name: l.name, unit_amount: l.unitAmount },
      quantity: l.quantity,
      name: l.name,
      description: l.description,
      unit_amount: l.unitAmount,
      totals: lineTotals(l),
    };
  }
  const line: AcpLineItem = {
    id: l.id,
    item: { id: l.itemId, quantity: l.quantity },
    base_amount: l.amount,
    discount: 0,
    subtotal: l.amount,
    tax: 0,
    total: l.amount,
  };
  if (shape === 'v2')
    Object.assign(line, { name: l.name, description: l.description, unit_amount: l.unitAmount });
  return line;
}

function totals(s: CheckoutSession, shape: AcpShape): AcpTotal[] {
  const per = s.cart.interval === 'year' ? 'a year' : 'a month';
  const after = s.cart.interval === null ? '' : ` (${per} after the ${s.cart.trialDays}-day free trial)`;
  const total: AcpTotal = { type: 'total', display_text: `Total${after}`, amount: s.cart.total };
  if (shape !== 'v1') {
    total.description =
      'Tax, if any, is assessed by the payment processor from the billing address at continue_url.';
  }
  return [
    { type: 'items_base_amount', display_text: 'Items', amount: s.cart.subtotal },
    { type: 'subtotal', display_text: 'Subtotal', amount: s.cart.subtotal },
    total,
  ];
}

function problemParam(s: CheckoutSession, note: SessionNote): string | undefined {
  const problem = note.problemIndex === undefined ? undefined : s.cart.problems[note.problemIndex];
  if (!problem || problem.itemId === null) return undefined;
  const index = s.cart.lines.findIndex((l) => l.itemId === problem.itemId);
  return problem.field === 'quantity' ? `$.line_items[${index}].quantity` : `$.line_items[${index}]`;
}

function message(s: CheckoutSession, note: SessionNote, version: AcpVersion): AcpMessage {
  const shape = shapeOf(version);
  if (note.kind === 'problem') {
    const problem = s.cart.problems[note.problemIndex ?? -1];
    const m: AcpMessage = {
      type: 'error',
      code: problem?.code ?? 'invalid',
      content_type: 'plain',
      content: note.text,
    };
    const param = problemParam(s, note);
    if (param) m.param = param;
    if (shape === 'v3') m.severity = 'high';
    if (version === '2026-04-17') m.resolution = 'recoverable';
    return m;
  }
  const m: AcpMessage =
    note.markdown === undefined
      ? { type: 'info', content_type: 'plain', content: note.text }
      : { type: 'info', content_type: 'markdown', content: note.markdown };
  if (note.kind === 'handoff') {
    if (shape === 'v3') m.param = '$.continue_url';
    if (version === '2026-04-17') m.resolution = 'requires_buyer_input';
  }
  return m;
}

// Buyer objects before 2026-01-30 require first_name, last_name and email; a partial buyer is recorded
// but shown only once it is complete enough for the version asked for.
function buyerFor(s: CheckoutSession, shape: AcpShape): AcpBuyer | undefined {
  const b = s.buyer;
  if (!b?.email) return undefined;
  // The email keeps its place in the wire order; it is only restated so the type knows it is there.
  const wire: AcpBuyer = { ...buyerWire(b), email: b.email };
  if (shape !== 'v3') return b.firstName && b.lastName ? wire : undefined;
  if (b.fullName !== undefined) wire.full_name = b.fullName;
  return wire;
}

function links(ctx: AcpContext, shape: AcpShape): AcpLink[] {
  const terms: AcpLink = { type: 'terms_of_use', url: ctx.termsUrl };
  const privacy: AcpLink = { type: 'privacy_policy', url: ctx.privacyUrl };
  if (shape === 'v3') {
    terms.title = 'Terms of use';
    privacy.title = 'Privacy policy';
  }
  return [terms, privacy];
}

export function presentAcpSession(
  s: CheckoutSession,
  version: AcpVersion,
  ctx: AcpContext,
): AcpCheckoutSession {
  const shape = shapeOf(version);
  const v3 = shape === 'v3';
  const buyer = buyerFor(s, shape);
  const notes = sessionNotes(s, ctx.continueUrl, ctx.now, { sandbox: ctx.sandbox ?? false });
  const body: AcpCheckoutSession = {
    id: s.id,
    // No payment handler: nothing is paid through the API; the owner pays at continue_url.
    ...(v3 ? { protocol: { version }, capabilities: { payment: { handlers: [] } } } : {}),
    status: statusFor(s.status, shape),
    currency: s.cart.currency,
    ...(buyer ? { buyer } : {}),
    line_items: s.cart.lines.map((l) => lineItem(l, shape)),
    fulfillment_options: [],
    totals: totals(s, shape),
    messages: notes.map((n) => message(s, n, version)),
    links: links(ctx, shape),
    ...(v3
      ? {
          created_at: iso(s.createdAt),
          updated_at: iso(s.updatedAt),
          expires_at: iso(s.expiresAt),
          continue_url: ctx.continueUrl,
        }
      : {}),
  };
  // The 2025-09-29 session object has no order field.
  if (s.order && shape !== 'v1') {
    body.order = {
      id: orderIdOf(s.order),
      checkout_session_id: s.id,
      permalink_url: orderPermalink(ctx.accountUrl, s.order),
    };
  }
  return body;
}
