// The UCP checkout operations under /ucp/v1: create (201), get, update (PUT, full replacement), complete, cancel.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buyerFrom } from '../commerce/buyer-input.ts';
import type { MoveOutcome, Render } from '../commerce/checkout-service.ts';
import { cancelSession, completeSession, updateSession } from '../commerce/checkout-session.ts';
import type { IdempotentHandler } from '../commerce/idempotent-request.ts';
import { idempotentRoute } from '../commerce/idempotent-route.ts';
import { jsonResponse, sendFinished } from '../commerce/send-response.ts';
import type { FinishedResponse } from '../shared/finished-response.ts';
import { UcpError, ucpErrorBody } from './errors.ts';
import type { Negotiated } from './negotiate.ts';
import { presentUcpSession } from './present-session.ts';
import { checkoutBody, completeBody, parseUcpBody, requested } from './schemas.ts';
import { CURRENT_UCP_VERSION } from './versions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    ucp: Negotiated | undefined;
  }
}

type Params = { Params: { id: string } };

export function ucpErrorResponse(err: UcpError, request: FastifyRequest): FinishedResponse {
  const r = jsonResponse(err.status, ucpErrorBody(err, request.ucp?.version ?? CURRENT_UCP_VERSION));
  Object.assign(r.headers, err.headers);
  return r;
}

export function registerUcpRoutes(app: FastifyInstance, handlerSpecUrl: string): void {
  const { storage, commerce, now, config } = app.colony;
  const sandbox = config.environment === 'sandbox';
  const { checkout, urls, idempotency } = commerce;

  const negotiated = (request: FastifyRequest): Negotiated => {
    if (!request.ucp) throw new Error('UCP request reached a route without negotiation');
    return request.ucp;
  };

  const render =
    (request: FastifyRequest, statusCode: number): Render =>
    (session) =>
      jsonResponse(
        statusCode,
        presentUcpSession(session, negotiated(request), {
          continueUrl: urls.continueUrl(session.id),
          termsUrl: urls.termsUrl,
          privacyUrl: urls.privacyUrl,
          accountUrl: urls.accountUrl,
          handlerSpecUrl,
          now: now(),
          sandbox,
        }),
      );

  const idempotent = (request: FastifyRequest, reply: FastifyReply, route: string, run: IdempotentHandler) =>
    idempotentRoute({
      request,
      reply,
      repo: storage.checkoutIdempotency,
      settings: idempotency,
      now: now(),
      scope: `ucp:${route}:${(request.params as { id?: string }).id ?? ''}`,
      variant: negotiated(request),
      errors: {
        render: (err) => (err instanceof UcpError ? ucpErrorResponse(err, request) : undefined),
        invalidKey: () =>
          new UcpError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.'),
        conflict: () =>
          new UcpError(
            'idempotency_conflict',
            'Idempotency-Key has already been used with a different request.',
          ),
        inFlight: (seconds) =>
          new UcpError(
            'idempotency_in_flight',
            'A request with this Idempotency-Key is currently being processed.',
            {
              headers: { 'retry-after': String(seconds) },
            },
          ),
      },
      run,
    });

  const cartFrom = (body: unknown) => {
    const parsed = parseUcpBody(checkoutBody, body);
    const priced = checkout.price(requested(parsed));
    if ('unknownItems' in priced) {
      const first = priced.unknownItems[0] ?? { index: 0, itemId: '' };
      throw new UcpError(
        'item_unavailable',
        `No catalog item with id '${first.itemId}'; GET /api/v1/commerce/catalog lists them.`,
        { path: `$.line_items[${first.index}].item.id` },
      );
    }
    return { cart: priced.cart, buyer: buyerFrom(parsed.buyer) ?? null, items: requested(parsed) };
  };

  const moved = (request: FastifyRequest, outcome: MoveOutcome, id: string): FinishedResponse => {
    if (outcome.outcome === 'not_found')
      throw new UcpError('not_found', `No checkout session with id ${id}.`);
    if (outcome.outcome === 'refused' && outcome.refused === 'final') {
      throw new UcpError(
        'checkout_not_modifiable',
        `Checkout session ${id} is ${outcome.session.status} and can no longer change.`,
      );
    }
    // Completing a cart that cannot be bought is a business outcome: the checkout, incomplete, says why.
    if (outcome.outcome === 'refused') return render(request, 200)(outcome.session);
    return outcome.response;
  };

  app.post('/checkout-sessions', async (request, reply) =>
    idempotent(request, reply, 'create', async (storeWith) => {
      const { buyer, items } = cartFrom(request.body);
      const outcome = await checkout.create('ucp', items, buyer, render(request, 201), storeWith);
      if (outcome.outcome === 'unknown_items')
        throw new Error('catalog changed between pricing and creation');
      return { response: outcome.response, stored: storeWith !== undefined };
    }),
  );

  app.get<Params>('/checkout-sessions/:id', async (request, reply) => {
    const session = await checkout.get('ucp', request.params.id);
    if (!session) throw new UcpError('not_found', `No checkout session with id ${request.params.id}.`);
    return sendFinished(reply, render(request, 200)(session));
  });

  app.put<Params>('/checkout-sessions/:id', async (request, reply) =>
    idempotent(request, reply, 'update', async (storeWith) => {
      const { cart, buyer } = cartFrom(request.body);
      const outcome = await checkout.move(
        'ucp',
        request.params.id,
        (s, at) => updateSession(s, { cart, buyer }, at),
        render(request, 200),
        storeWith,
      );
      return {
        response: moved(request, outcome, request.params.id),
        stored: storeWith !== undefined && outcome.outcome === 'moved',
      };
    }),
  );

  app.post<Params>('/checkout-sessions/:id/complete', async (request, reply) =>
    idempotent(request, reply, 'complete', async (storeWith) => {
      // Payment instruments a platform may send are ignored and never stored: the owner pays at continue_url.
      parseUcpBody(completeBody, request.body);
      const outcome = await checkout.move(
        'ucp',
        request.params.id,
        (s, at) => completeSession(s, undefined, at),
        render(request, 200),
        storeWith,
      );
      return {
        response: moved(request, outcome, request.params.id),
        stored: storeWith !== undefined && outcome.outcome === 'moved',
      };
    }),
  );

  app.post<Params>('/checkout-sessions/:id/cancel', async (request, reply) =>
    idempotent(request, reply, 'cancel', async (storeWith) => {
      const outcome = await checkout.move(
        'ucp',
        request.params.id,
        (s, at) => cancelSession(s, at),
        render(request, 200),
        storeWith,
      );
      return {
        response: moved(request, outcome, request.params.id),
        stored: storeWith !== undefined && outcome.outcome === 'moved',
      };
    }),
  );
}
