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
  /** How many times each Checkout Session was retrieved from "Stripe". */
  readonly retrieved: Map<string, number>;
  /** Every request relayed, as `METHOD /path` (no query), in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const DAY = 24 * 60 * 60;
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function paid(session: Record<string, unknown>, cleared: boolean): Record<string, unknown> {
  const sub = session.subscription;
  const trialEnd = Math.floor(Date.now() / 1000) + 14 * DAY;
  return {
    ...session,
    status: 'complete',
    payment_status: cleared ? 'no_payment_required' : 'unpaid',
    mode: 'subscription',
    subscription:
      sub && typeof sub === 'object' ? { ...sub, status: 'trialing', trial_end: trialEnd } : (sub ?? null),
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
    const id = /^\/v1\/checkout\/sessions\/(cs_[^/?]+)/.exec(req.url ?? '')?.[1];
    if (req.method !== 'GET' || !id) return { status: upstream.status, type, text };
    retrieved.set(id, (retrieved.get(id) ?? 0) + 1);
    const cleared = paidSessions.get(id);
    const shown =
      upstream.ok && cleared !== undefined ? JSON.stringify(paid(JSON.parse(text), cleared)) : text;
    return { status: upstream.status, type, text: shown };
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
    retrieved,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
