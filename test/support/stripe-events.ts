// Stripe webhook events for tests: the JSON Stripe sends, signed with the stripe package's own test
// header under a per-run secret, and delivered to a test server's webhook endpoint.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { TestServer } from './server.ts';

export const SECRET = `whsec_${randomBytes(24).toString('base64url').replaceAll('-', 'A')}`;
const WEBHOOK = '/billing/webhooks/stripe';

/** The event Stripe sends, as JSON text: the signature covers these exact bytes. */
export function eventBody(
  type: string,
  checkoutSessionId: string,
  eventId = `evt_${randomBytes(12).toString('hex')}`,
) {
  return JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: '2025-10-29.clover',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: {
      object: {
        id: checkoutSessionId,
        object: 'checkout.session',
        mode: 'subscription',
        status: 'complete',
        payment_status: 'no_payment_required',
      },
    },
  });
}

/** A subscription event: its object is the subscription as it was when Stripe sent it. */
export function subscriptionEventBody(type: string, subscriptionId: string, status: string, created: number) {
  return JSON.stringify({
    id: `evt_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: '2025-10-29.clover',
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object: { id: subscriptionId, object: 'subscription', status } },
  });
}

export const signature = (payload: string, opts: { secret?: string; timestamp?: number } = {}) =>
  Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: opts.secret ?? SECRET,
    ...(opts.timestamp === undefined ? {} : { timestamp: opts.timestamp }),
  });

/** `null` sends no Stripe-Signature header at all. */
export function deliver(s: TestServer, payload: string, header: string | null = signature(payload)) {
  return s.app.inject({
    method: 'POST',
    url: WEBHOOK,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(header === null ? {} : { 'stripe-signature': header }),
    },
    payload,
  });
}
