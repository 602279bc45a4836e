// A checkout surface's errors: refusals and framework failures become the adapter's typed errors, and
// those become response bytes in the protocol's format (stored with idempotent answers, so replays match).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type CatalogueError, messageFor } from '../shared/error-catalogue.ts';
import type { FinishedResponse } from '../shared/finished-response.ts';
import { frameworkError, logMapped } from '../shared/framework-errors.ts';
import type { CheckoutAdapter, RefusalAnswer } from './checkout-adapter.ts';
import { type Refusal, refusalDetails } from './checkout-refusals.ts';
import { jsonResponse, sendFinished } from './send-response.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The version a checkout request was negotiated at; each surface reads it as its adapter's type. */
    checkoutVariant: unknown;
  }
}

export interface CheckoutErrors<V, E> {
  /** The negotiated version; an operation reached without one is a server bug. */
  variantOf(request: FastifyRequest): V;
  refuse(refusal: Exclude<Refusal, { reason: 'not_ready' }>): E;
  answer(answer: RefusalAnswer<string>, refusal: Refusal): E;
  /** Any error thrown in the surface as the adapter's error; unexpected ones are logged. */
  fromThrown(err: FastifyError, request: FastifyRequest): E;
  respond(err: E, request: FastifyRequest): FinishedResponse;
  send(request: FastifyRequest, reply: FastifyReply, err: E): FastifyReply;
}

export function checkoutErrors<V, C extends string, E extends CatalogueError<C>>(
  adapter: CheckoutAdapter<V, C, E>,
): CheckoutErrors<V, E> {
  const { catalogue, refusals, create, is, body } = adapter.errors;
  const label = adapter.protocol.toUpperCase();
  const table = refusals as Partial<Record<string, RefusalAnswer<C> | 'present'>>;

  const answer = (to: RefusalAnswer<string>, refusal: Refusal): E => {
    const { params, at, headers } = refusalDetails(refusal);
    const code = (typeof to === 'string' ? to : to.code) as C;
    const message = typeof to === 'string' ? messageFor(catalogue, code, params) : to.message;
    return create(code, message, { ...(at ? { at } : {}), ...(headers ? { headers } : {}) });
  };

  const respond = (err: E, request: FastifyRequest): FinishedResponse => {
    const r = jsonResponse(err.status, body(err, request.checkoutVariant as V | undefined));
    Object.assign(r.headers, err.headers);
    return r;
  };

  return {
    variantOf(request) {
      if (request.checkoutVariant === undefined)
        throw new Error(`${label} request reached a route without negotiation`);
      return request.checkoutVariant as V;
    },
    refuse(refusal) {
      const to = table[refusal.reason] ?? refusal.reason;
      if (to === 'present') throw new Error(`${refusal.reason} cannot be presented`);
      return answer(to, refusal);
    },
    answer,
    fromThrown(err, request) {
      if (is(err)) return err;
      const mapped = frameworkError(catalogue, err);
      logMapped(request, mapped.kind, err, `unhandled error on ${label}`);
      return create(mapped.code, mapped.message, mapped.headers ? { headers: mapped.headers } : {});
    },
    respond,
    send: (request, reply, err) => sendFinished(reply, respond(err, request)),
  };
}
