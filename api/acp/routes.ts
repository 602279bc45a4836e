// The five ACP checkout operations: create, get, update, complete and cancel.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buyerFrom } from '../commerce/buyer-input.ts';
import type { PricedCart } from '../commerce/checkout-pricing.ts';
import type { CreateOutcome, MoveOutcome, Render } from '../commerce/checkout-service.ts';
import { type Buyer, cancelSession, completeSession, updateSession } from '../commerce/checkout-session.ts';
import type { IdempotentHandler } from '../commerce/idempotent-request.ts';
import { idempotentRoute, type ProtocolErrors } from '../commerce/idempotent-route.ts';
import { jsonResponse, sendFinished } from '../commerce/send-response.ts';
import type { FinishedResponse } from '../shared/finished-response.ts';
import { AcpError, acpErrorBody } from './errors.ts';
import { presentAcpSession } from './present-session.ts';
import { completeBody, createBody, parseBody, requestedItems, updateBody } from './schemas.ts';
import type { AcpVersion } from './versions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    acpVersion: AcpVersion;
  }
}

type Params = { Params: { id: string } };

export function acpErrorResponse(err: AcpError, version: AcpVersion): FinishedResponse {
  const r = jsonResponse(err.status, acpErrorBody(err.code, err.message, version, err.param));
  Object.assign(r.headers, err.headers);
  return r;
}

function unknownItemsError(field: string, unknown: { index: number; itemId: string }[]): AcpError {
  const first = unknown[0] ?? { index: 0, itemId: '' };
  const param =
    field === 'line_items' ? `$.line_items[${first.index}].item.id` : `$.items[${first.index}].id`;
  const ids = unknown.map((u) => `'${u.itemId}'`).join(', ');
  return new AcpError(
    'invalid_item_id',
    `No catalog item with id ${ids}; GET /api/v1/commerce/catalog lists them.`,
    {
      param,
    },
  );
}

export function registerAcpRoutes(app: FastifyInstance): void {
  const { storage, commerce, now, config } = app.colony;
  const sandbox = config.environment === 'sandbox';
  const { checkout, urls, idempotency } = commerce;

  const render =
    (version: AcpVersion, statusCode: number): Render =>
    (session) =>
      jsonResponse(
        statusCode,
        presentAcpSession(session, version, {
          continueUrl: urls.continueUrl(session.id),
          termsUrl: urls.termsUrl,
          privacyUrl: urls.privacyUrl,
          accountUrl: urls.accountUrl,
          now: now(),
          sandbox,
        }),
      );

  const errors: ProtocolErrors = {
    render: () => undefined,
    invalidKey: () =>
      new AcpError('idempotency_key_invalid', 'Idempotency-Key must be 1 to 255 visible ASCII characters.'),
    conflict: () =>
      new AcpError(
        'idempotency_conflict',
        'Idempotency-Key has already been used with a different request body.',
      ),
    inFlight: (seconds) =>
      new AcpError(
        'idempotency_in_flight',
        'A request with this Idempotency-Key is currently being processed.',
        {
          headers: { 'retry-after': String(seconds) },
        },
      ),
  };

  /** Runs a POST under its Idempotency-Key; ACP errors thrown inside become stored, replayable answers. */
  const idempotent = (request: FastifyRequest, reply: FastifyReply, route: string, run: IdempotentHandler) =>
    idempotentRoute({
      request,
      reply,
      repo: storage.checkoutIdempotency,
      settings: idempotency,
      now: now(),
      scope: `acp:${route}:${(request.params as { id?: string }).id ?? ''}`,
      variant: request.acpVersion,
      errors: {
        ...errors,
        render: (err) => (err instanceof AcpError ? acpErrorResponse(err, request.acpVersion) : undefined),
      },
      run,
    });

  const cartOf = (items: ReturnType<typeof requestedItems>): PricedCart | undefined => {
    if (!items) return undefined;
    const priced = checkout.price(items.items);
    if ('unknownItems' in priced) throw unknownItemsError(items.field, priced.unknownItems);
    return priced.cart;
  };

  const moved = (outcome: MoveOutcome, id: string) => {
    if (outcome.outcome === 'not_found')
      throw new AcpError('not_found', `No checkout session with id ${id}.`);
    if (outcome.outcome === 'refused' && outcome.refused === 'final') {
      throw new AcpError(
        'session_final',
        `Checkout session ${id} is ${outcome.session.status} and can no longer change.`,
      );
    }
    if (outcome.outcome === 'refused') {
      throw new AcpError(
        'session_not_ready',
        `Checkout session ${id} cannot be bought as it stands: ${outcome.session.cart.problems.map((p) => p.message).join(' ')}`,
      );
    }
    return outcome.response;
  };

  app.post('/checkout_sessions', async (request, reply) =>
    idempotent(request, reply, 'create', async (storeWith) => {
      const body = parseBody(createBody, request.body);
      const items = requestedItems(body);
      if (!items) throw new AcpError('invalid_request', 'line_items is required.', { param: '$.line_items' });
      const outcome: CreateOutcome = await checkout.create(
        'acp',
        items.items,
        buyerFrom(body.buyer) ?? null,
        render(request.acpVersion, 201),
        storeWith,
      );
      if (outcome.outcome === 'unknown_items') throw unknownItemsError(items.field, outcome.unknownItems);
      return { response: outcome.response, stored: storeWith !== undefined };
    }),
  );

  app.get<Params>('/checkout_sessions/:id', async (request, reply) => {
    const session = await checkout.get('acp', request.params.id);
    if (!session) throw new AcpError('not_found', `No checkout session with id ${request.params.id}.`);
    return sendFinished(reply, render(request.acpVersion, 200)(session));
  });

  app.post<Params>('/checkout_sessions/:id', async (request, reply) =>
    idempotent(request, reply, 'update', async (storeWith) => {
      const body = parseBody(updateBody, request.body);
      const cart = cartOf(requestedItems(body));
      const buyer: Buyer | undefined = buyerFrom(body.buyer);
      const change = { ...(cart ? { cart } : {}), ...(buyer ? { buyer } : {}) };
      const outcome = await checkout.move(
        'acp',
        request.params.id,
        (s, at) => updateSession(s, change, at),
        render(request.acpVersion, 200),
        storeWith,
      );
      return { response: moved(outcome, request.params.id), stored: storeWith !== undefined };
    }),
  );

  app.post<Params>('/checkout_sessions/:id/complete', async (request, reply) =>
    idempotent(request, reply, 'complete', async (storeWith) => {
      const buyer = buyerFrom(parseBody(completeBody, request.body).buyer);
      const outcome = await checkout.move(
        'acp',
        request.params.id,
        (s, at) => completeSession(s, buyer, at),
        render(request.acpVersion, 200),
        storeWith,
      );
      return { response: moved(outcome, request.params.id), stored: storeWith !== undefined };
    }),
  );

  app.post<Params>('/checkout_sessions/:id/cancel', async (request, reply) =>
    idempotent(request, reply, 'cancel', async (storeWith) => {
      const outcome = await checkout.move(
        'acp',
        request.params.id,
        (s, at) => cancelSession(s, at),
        render(request.acpVersion, 200),
        storeWith,
      );
      return { response: moved(outcome, request.params.id), stored: storeWith !== undefined };
    }),
  );

  app.post('/agentic_commerce/delegate_payment', async () => {
    throw new AcpError(
      'delegated_payment_unsupported',
      'Delegated payment is not supported: Colony takes no payment through the API. Complete the checkout session and send the account owner to its continue_url.',
    );
  });
}
