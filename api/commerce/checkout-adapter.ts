// What a checkout protocol (ACP, UCP) hands the one checkout surface: its paths, version negotiation, request
// parsers, presenter, error catalogue and refusal mapping. The surface (checkout-surface.ts) does the rest.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CatalogueError, ErrorCatalogue } from '../shared/error-catalogue.ts';
import type { ItemsRequest, RefusalReason } from './checkout-refusals.ts';
import type { Buyer, CheckoutProtocol, CheckoutSession } from './checkout-session.ts';

export interface CheckoutParsers {
  create(body: unknown): { items: ItemsRequest; buyer?: Buyer | undefined };
  /** Items replace the cart when given; a buyer left undefined keeps the recorded one, null clears it. */
  update(body: unknown): { items?: ItemsRequest | undefined; buyer?: Buyer | null | undefined };
  /** The buyer complete records, if the protocol takes one there. */
  complete(body: unknown): Buyer | undefined;
}

/** The links and clock every presenter needs. */
export interface PresentContext {
  continueUrl: string;
  termsUrl: string;
  privacyUrl: string;
  /** The owner's account page; an order's permalink is under it (orderPermalink). */
  accountUrl: string;
  now: number;
  /** COLONY_ENVIRONMENT=sandbox: every session says that nothing is charged and data is disposable. */
  sandbox?: boolean;
}

/**
 * How a request's version `V` is settled. `onRequest`: from headers alone, before the rate limit, on every
 * route (unknown ones too). `preHandler`: after the rate limit and the body, on the operations only.
 */
export type Negotiation<V> =
  | { hook: 'onRequest'; negotiate(request: FastifyRequest, reply: FastifyReply): V }
  | { hook: 'preHandler'; negotiate(request: FastifyRequest, reply: FastifyReply): Promise<V> };

/** A wire code (its message from the catalogue's template), or a code with a message of its own. */
export type RefusalAnswer<C extends string> = C | { code: C; message: string };

/**
 * Each refusal is answered with the code of the same name unless the table names another; a cart that
 * cannot be bought may instead be answered with the session itself ('present'), whose messages say why.
 */
export type RefusalTable<C extends string> = {
  [R in Exclude<RefusalReason, C | 'not_ready'>]: RefusalAnswer<C>;
} & { [R in Exclude<RefusalReason, 'not_ready'>]?: RefusalAnswer<C> } & {
  not_ready: RefusalAnswer<C> | 'present';
};

export interface CheckoutAdapter<V, C extends string, E extends CatalogueError<C>> {
  protocol: CheckoutProtocol;
  routes: {
    /** The sessions collection; a session is `<sessions>/:id`, with `/complete` and `/cancel` below it. */
    sessions: string;
    update: 'POST' | 'PUT';
    /** Operations beyond the five (ACP's delegate_payment refusal). */
    extra?: (app: FastifyInstance) => void;
  };
  negotiation: Negotiation<V>;
  /** A create whose bearer token is a registered agent platform's key is that platform's (ACP). */
  platformKeys?: boolean;
  parsers: CheckoutParsers;
  present(session: CheckoutSession, variant: V, ctx: PresentContext): unknown;
  errors: {
    catalogue: ErrorCatalogue<C>;
    refusals: RefusalTable<C>;
    create(code: C, message: string, extra: { at?: string; headers?: Record<string, string> }): E;
    is(err: unknown): err is E;
    /** The wire body; `variant` is undefined when negotiation has not settled one. */
    body(err: E, variant: V | undefined): unknown;
  };
}
