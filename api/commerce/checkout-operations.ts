// The five checkout operations (create, get, update, complete, cancel) for any protocol: parse with the
// adapter, move the session through the checkout service, present it, and answer refusals in its format.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CatalogueError } from '../shared/error-catalogue.ts';
import type { FinishedResponse } from '../shared/finished-response.ts';
import type { CheckoutAdapter } from './checkout-adapter.ts';
import type { CheckoutErrors } from './checkout-errors.ts';
import type { PricedCart } from './checkout-pricing.ts';
import type { ItemsRequest } from './checkout-refusals.ts';
import type { MoveOutcome, Render } from './checkout-service.ts';
import {
  type CheckoutSession,
  cancelSession,
  completeSession,
  type MoveResult,
  updateSession,
} from './checkout-session.ts';
import type { CommerceOptions } from './commerce-services.ts';
import type { IdempotentHandler } from './idempotent-request.ts';
import { idempotentRoute } from './idempotent-route.ts';
import { platformOfRequest } from './order-webhooks/platform-key.ts';
import { jsonResponse, sendFinished } from './send-response.ts';

type Params = { Params: { id: string } };
type Move = (s: CheckoutSession, now: number) => MoveResult;

export function registerCheckoutOperations<V, C extends string, E extends CatalogueError<C>>(
  app: FastifyInstance,
  adapter: CheckoutAdapter<V, C, E>,
  errors: CheckoutErrors<V, E>,
  opts: Pick<CommerceOptions, 'storage' | 'commerce' | 'now' | 'config'>,
): void {
  const { storage, commerce, now, config } = opts;
  const sandbox = config.environment === 'sandbox';
  const { checkout, urls, idempotency } = commerce;
  const { protocol, parsers } = adapter;
  const base = adapter.routes.sessions;

  const render =
    (request: FastifyRequest, statusCode: number): Render =>
    (session) =>
      jsonResponse(
        statusCode,
        adapter.present(session, errors.variantOf(request), {
          continueUrl: urls.continueUrl(session.id),
          termsUrl: urls.termsUrl,
          privacyUrl: urls.privacyUrl,
          accountUrl: urls.accountUrl,
          now: now(),
          sandbox,
        }),
      );

  /** Runs a POST under its Idempotency-Key; protocol errors thrown inside become stored, replayable answers. */
  const idempotent = (
    request: FastifyRequest,
    reply: FastifyReply,
    operation: string,
    run: IdempotentHandler,
    claimInWrite = false,
  ) =>
    idempotentRoute({
      request,
      reply,
      repo: storage.checkoutIdempotency,
      settings: idempotency,
      now: now(),
      scope: `${protocol}:${operation}:${(request.params as { id?: string }).id ?? ''}`,
      variant: errors.variantOf(request),
      claimInWrite,
      errors: {
        render: (err) => (adapter.errors.is(err) ? errors.respond(err, request) : undefined),
        invalidKey: () => errors.refuse({ reason: 'idempotency_key_invalid' }),
        conflict: () => errors.refuse({ reason: 'idempotency_conflict' }),
        inFlight: (retryAfterSeconds) =>
          errors.refuse({ reason: 'idempotency_in_flight', retryAfterSeconds }),
      },
      run,
    });

  const priced = (items: ItemsRequest): PricedCart => {
    const result = checkout.price(items.items);
    if ('unknownItems' in result) {
      throw errors.refuse({ reason: 'unknown_items', unknownItems: result.unknownItems, field: items.field });
    }
    return result.cart;
  };

  const answer = (request: FastifyRequest, outcome: MoveOutcome, id: string): FinishedResponse => {
    if (outcome.outcome === 'moved') return outcome.response;
    if (outcome.outcome === 'not_found') throw errors.refuse({ reason: 'not_found', id });
    const { session } = outcome;
    if (outcome.refused === 'final') throw errors.refuse({ reason: 'final', id, status: session.status });
    const notReady = adapter.errors.refusals.not_ready;
    // A cart that cannot be bought is, in some protocols, a business outcome: the session says why.
    if (notReady === 'present') return render(request, 200)(session);
    throw errors.answer(notReady, { reason: 'not_ready', id, session });
  };

  /** An operation that moves one session; `parse` reads the body first, inside the idempotent run. */
  const moving = (operation: string, parse: (request: FastifyRequest) => Move) =>
    async function move(request: FastifyRequest<Params>, reply: FastifyReply) {
      return idempotent(request, reply, operation, async (storeWith) => {
        const step = parse(request);
        const { id } = request.params;
        const outcome = await checkout.move(protocol, id, step, render(request, 200), storeWith);
        return {
          response: answer(request, outcome, id),
          stored: storeWith !== undefined && outcome.outcome === 'moved',
        };
      });
    };

  app.post(base, async (request, reply) =>
    idempotent(
      request,
      reply,
      'create',
      async (storeWith) => {
        const { items, buyer } = parsers.create(request.body);
        const platformId = adapter.platformKeys
          ? await platformOfRequest(storage.agentPlatforms, request.headers.authorization)
          : undefined;
        const outcome = await checkout.create(
          protocol,
          items.items,
          buyer ?? null,
          render(request, 201),
          storeWith,
          platformId,
        );
        if (outcome.outcome === 'unknown_items') {
          throw errors.refuse({
            reason: 'unknown_items',
            unknownItems: outcome.unknownItems,
            field: items.field,
          });
        }
        if (outcome.outcome === 'key_taken')
          return { response: outcome.response, stored: false, keyTaken: true };
        return { response: outcome.response, stored: storeWith !== undefined };
      },
      true,
    ),
  );

  app.get<Params>(`${base}/:id`, async (request, reply) => {
    const session = await checkout.get(protocol, request.params.id);
    if (!session) throw errors.refuse({ reason: 'not_found', id: request.params.id });
    return sendFinished(reply, render(request, 200)(session));
  });

  app.route<Params>({
    method: adapter.routes.update,
    url: `${base}/:id`,
    handler: moving('update', (request) => {
      const { items, buyer } = parsers.update(request.body);
      const cart = items ? priced(items) : undefined;
      // An undefined cart or buyer keeps the session's own.
      return (s, at) => updateSession(s, { cart, buyer }, at);
    }),
  });

  app.post<Params>(
    `${base}/:id/complete`,
    moving('complete', (request) => {
      const buyer = parsers.complete(request.body);
      return (s, at) => completeSession(s, buyer, at);
    }),
  );

  app.post<Params>(
    `${base}/:id/cancel`,
    moving('cancel', () => cancelSession),
  );
}
