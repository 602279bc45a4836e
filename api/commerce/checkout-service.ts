// The checkout domain's I/O: reads sessions (expiring them lazily), applies the pure moves and writes them,
// together with the idempotent response when the caller has one to store. Both protocols use it.

import type { CatalogItem } from '../domain/pricing/catalog.ts';
import type { FinishedResponse } from '../shared/finished-response.ts';
import { randomHex } from '../shared/random-id.ts';
import type { ClaimOptions } from './checkout-idempotency-repo.ts';
import { type PricingResult, priceCart, type RequestedItem } from './checkout-pricing.ts';
import {
  type Buyer,
  type CheckoutProtocol,
  type CheckoutSession,
  expireIfDue,
  type MoveRefusal,
  type MoveResult,
  newSession,
} from './checkout-session.ts';
import type { CheckoutSessionsRepo } from './checkout-sessions-repo.ts';

export const sessionIdPrefix: Record<CheckoutProtocol, string> = { acp: 'cs_', ucp: 'ucs_' };

export function newSessionId(protocol: CheckoutProtocol): string {
  return `${sessionIdPrefix[protocol]}${randomHex(16)}`;
}

/** Turns the session a move produced into the bytes the client gets (and a replay repeats). */
export type Render = (session: CheckoutSession) => FinishedResponse;

export interface StoreWith {
  scope: string;
  key: string;
  /** The key is not claimed yet: the write claims it, and writes nothing if it is held. */
  claim?: ClaimOptions;
}

export type CreateOutcome =
  | { outcome: 'created'; session: CheckoutSession; response: FinishedResponse }
  /** The write was to claim the idempotency key and found it held: nothing was written. */
  | { outcome: 'key_taken'; response: FinishedResponse }
  | { outcome: 'unknown_items'; unknownItems: { index: number; itemId: string }[] };

export type MoveOutcome =
  | { outcome: 'moved'; session: CheckoutSession; response: FinishedResponse }
  | { outcome: 'not_found' }
  | ({ outcome: 'refused'; session: CheckoutSession } & MoveRefusal);

export interface CheckoutServiceOptions {
  sessions: CheckoutSessionsRepo;
  catalog: readonly CatalogItem[];
  trialDays: number;
  priceListVersion: string;
  now: () => number;
}

// Optimistic writes retry a few times when another request moved the same session in between.
const MAX_ATTEMPTS = 5;

export class CheckoutService {
  private readonly o: CheckoutServiceOptions;

  constructor(o: CheckoutServiceOptions) {
    this.o = o;
  }

  price(requested: readonly RequestedItem[]): PricingResult {
    return priceCart(requested, this.o.catalog, {
      trialDays: this.o.trialDays,
      priceListVersion: this.o.priceListVersion,
    });
  }

  async create(
    protocol: CheckoutProtocol,
    requested: readonly RequestedItem[],
    buyer: Buyer | null,
    render: Render,
    storeWith?: StoreWith,
    platformId?: string,
  ): Promise<CreateOutcome> {
    const priced = this.price(requested);
    if ('unknownItems' in priced) return { outcome: 'unknown_items', unknownItems: priced.unknownItems };
    const session = newSession({
      id: newSessionId(protocol),
      protocol,
      cart: priced.cart,
      buyer,
      now: this.o.now(),
      platformId,
    });
    const response = render(session);
    const written = await this.o.sessions.write({
      session,
      created: true,
      ...(storeWith ? { idempotency: { ...storeWith, response } } : {}),
    });
    // A fresh id cannot lose a race: only a claim inside the write can stop it.
    if (!written) return { outcome: 'key_taken', response };
    return { outcome: 'created', session, response };
  }

  /** The session as it stands now: one past its expiry is marked expired on the way out. */
  async get(protocol: CheckoutProtocol, id: string): Promise<CheckoutSession | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const stored = await this.o.sessions.get(id);
      if (!stored || stored.protocol !== protocol) return undefined;
      const current = expireIfDue(stored, this.o.now());
      if (current === stored || (await this.o.sessions.write({ session: current, created: false })))
        return current;
    }
    throw new Error(`checkout session ${id} kept changing while being read`);
  }

  /** Applies `move` to the current session and writes the result with its rendered response. */
  async move(
    protocol: CheckoutProtocol,
    id: string,
    move: (s: CheckoutSession, now: number) => MoveResult,
    render: Render,
    storeWith?: StoreWith,
  ): Promise<MoveOutcome> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.get(protocol, id);
      if (!current) return { outcome: 'not_found' };
      const result = move(current, this.o.now());
      if (!('session' in result)) return { outcome: 'refused', session: current, ...result };
      const response = render(result.session);
      const written = await this.o.sessions.write({
        session: result.session,
        created: false,
        ...(storeWith ? { idempotency: { ...storeWith, response } } : {}),
      });
      if (written) return { outcome: 'moved', session: result.session, response };
    }
    throw new Error(`checkout session ${id} kept changing while being moved`);
  }

  /** The sweeper's pass: expires every live session past its expiry. */
  expireDue(): Promise<number> {
    return this.o.sessions.expireDue(this.o.now());
  }
}
