// A pass-through in front of stripe-mock that can show a Checkout Session as paid. stripe-mock checks
// every request against Stripe's OpenAPI description but keeps no state, so its Checkout Sessions are
// always `open`: the customer paying at Stripe is the one thing it cannot show. Every request still goes
// to stripe-mock and its answer comes back unchanged, except a retrieve of a session the test paid, where
// only the fields paying changes are set (status, payment_status, the subscription's trial).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StripeCheckoutDesk {
  url: string;
  /** The customer finished this Checkout Session at Stripe (a trial: nothing charged yet). */
  pay(checkoutSessionId: string): void;
  /** The customer finished it with a delayed method (a bank debit) whose money has not arrived. */
  payLater(checkoutSessionId: string): void;
  /** The subscription as Stripe would now show it (status, trial end as epoch seconds, any other field). */
  setSubscription(subscriptionId: string, fields: SubscriptionFields): void;
  /** Fails every retrieve of this subscription with a 500, as an unreachable Stripe would. */
  breakSubscription(subscriptionId: string): void;
  /** How many times each Checkout Session (and subscription) was retrieved from "Stripe". */
  readonly retrieved: Map<string, number>;
  /** Every request relayed, as `METHOD /path` (no query), in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

type SubscriptionFields = { status: string; trial_end?: number | null } & Record<string, unknown>;

const DAY = 24 * 60 * 60;
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Each paid Checkout Session opens its own subscription (stripe-mock names every one the same). */
export const subscriptionOfSession = (checkoutSessionId: string) => `sub_of_${checkoutSessionId}`;

function paid(session: Record<string, unknown>, cleared: boolean): Record<string, unknown> {
  const sub = session.subscription;
  const trialEnd = Math.floor(Date.now() / 1000) + 14 * DAY;
  const id = subscriptionOfSession(String(session.id));
  return {
    ...session,
    status: 'complete',
    payment_status: cleared ? 'no_payment_required' : 'unpaid',
    mode: 'subscription',
    subscription:
      sub && typeof sub === 'object'
        ? { ...sub, id, status: 'trialing', trial_end: trialEnd }
        : (sub ?? null),
  };
}

function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (!HOP_BY_HOP.has(k) && typeof v === 'string') headers[k] = v;
  return headers;
}

export async function startStripeCheckoutDesk(stripeMockUrl: string): Promise<StripeCheckoutDesk> {
  // true once the money is there; false while a delayed payment is on its way.
  const paidSessions = new Map<string, boolean>();
  const retrieved = new Map<string, number>();
  const requests: string[] = [];
  const subscriptions = new Map<string, SubscriptionFields | 'broken'>();

  /** A retrieve of a subscription the test set: stripe-mock's fixture with the test's state. */
  function subscriptionAnswer(id: string, text: string) {
    retrieved.set(id, (retrieved.get(id) ?? 0) + 1);
    const set = subscriptions.get(id);
    if (set === 'broken')
      return { status: 500, type: 'application/json', text: '{"error":{"type":"api_error"}}' };
    const shown = set ? { ...(JSON.parse(text) as object), id, ...set } : JSON.parse(text);
    return { status: 200, type: 'application/json', text: JSON.stringify(shown) };
  }

  async function relay(req: IncomingMessage): Promise<{ status: number; type: string; text: string }> {
    const body = await bodyOf(req);
    requests.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
    const upstream = await fetch(`${stripeMockUrl}${req.url}`, {
      method: req.method ?? 'GET',
      headers: forwardedHeaders(req),
      ...(body.length > 0 ? { body } : {}),
    });
    const text = await upstream.text();
    const type = upstream.headers.get('content-type') ?? 'application/json';
    if (req.method !== 'GET' || !upstream.ok) return { status: upstream.status, type, text };
    return retrievedAnswer(req.url ?? '', text) ?? { status: upstream.status, type, text };
  }

  /** What a retrieve the test changed shows: a paid Checkout Session, or a subscription's set state. */
  function retrievedAnswer(url: string, text: string) {
    const subscription = /^\/v1\/subscriptions\/(sub_[^/?]+)/.exec(url)?.[1];
    if (subscription && subscriptions.has(subscription)) return subscriptionAnswer(subscription, text);
    const id = /^\/v1\/checkout\/sessions\/(cs_[^/?]+)/.exec(url)?.[1];
    if (!id) return undefined;
    retrieved.set(id, (retrieved.get(id) ?? 0) + 1);
    const cleared = paidSessions.get(id);
    if (cleared === undefined) return undefined;
    return { status: 200, type: 'application/json', text: JSON.stringify(paid(JSON.parse(text), cleared)) };
  }

  const server = createServer((req, res) => {
    relay(req).then(
      (r) => {
        res.writeHead(r.status, { 'content-type': r.type });
        res.end(r.text);
      },
      (err) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pay: (id) => paidSessions.set(id, true),
    payLater: (id) => paidSessions.set(id, false),
    setSubscription: (id, fields) => subscriptions.set(id, fields),
    breakSubscription: (id) => subscriptions.set(id, 'broken'),
    retrieved,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
