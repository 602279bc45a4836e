// Stripe's webhook: a signed `checkout.session.completed` finishes the Colony checkout through the same
// path as the owner's return, so an owner who pays and closes the tab is still subscribed; the
// subscription events keep the account's subscription in step (subscription-events.ts).
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Stripe from 'stripe';
import { installProblemHandlers, sendProblem } from '../../shared/problem-handlers.ts';
import type { CommerceOptions } from '../commerce-services.ts';
import { type FinishOutcome, finishCheckout } from './finish-checkout.ts';
import { type SyncOutcome, subscriptionEventOf, syncSubscription } from './subscription-events.ts';

export const STRIPE_WEBHOOK_PATH = '/billing/webhooks/stripe';

/** Events that mean the owner finished at Stripe Checkout; both are answered by asking Stripe itself. */
export const CHECKOUT_FINISHED_EVENTS: ReadonlySet<string> = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
]);

// Stripe's events are a few kilobytes; a Checkout Session with every field set stays far below this.
const WEBHOOK_BODY_LIMIT = 512 * 1024;
// Stripe's own default: a signature older than five minutes is a replay, not a redelivery (which is re-signed).
const SIGNATURE_TOLERANCE_SECONDS = 300;

const hidden = { schema: { hide: true } };

/** The Stripe Checkout Session a verified event is about, when it is one we act on. */
export function finishedCheckoutOf(event: Stripe.Event): string | undefined {
  if (!CHECKOUT_FINISHED_EVENTS.has(event.type)) return undefined;
  const id = (event.data?.object as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id.startsWith('cs_') ? id : undefined;
}

export async function stripeWebhook(app: FastifyInstance, opts: CommerceOptions): Promise<void> {
  const { config, storage, commerce, now } = opts;
  const { checkout, processor, orderEvents: events } = commerce;
  const base = config.baseUrl;
  const secret = processor.name === 'stripe' ? config.commerce.stripeWebhookSecret : undefined;

  installProblemHandlers(app, base);
  // The signature covers the exact bytes Stripe sent, so this scope keeps the body as it came.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) =>
    done(null, body),
  );

  function verified(request: FastifyRequest, reply: FastifyReply, key: string): Stripe.Event | undefined {
    const signature = request.headers['stripe-signature'];
    if (typeof signature !== 'string' || signature === '' || !Buffer.isBuffer(request.body)) {
      sendProblem(
        reply,
        request,
        base,
        'invalid_signature',
        'The Stripe-Signature header or the body is missing.',
      );
      return undefined;
    }
    try {
      return Stripe.webhooks.constructEvent(
        request.body,
        signature,
        key,
        SIGNATURE_TOLERANCE_SECONDS,
        undefined,
        now(),
      );
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
        sendProblem(reply, request, base, 'invalid_signature', `Stripe-Signature refused: ${err.message}`);
      } else {
        sendProblem(reply, request, base, 'malformed_body', 'The signed body is not a JSON Stripe event.');
      }
      return undefined;
    }
  }

  async function subscriptionEvent(
    request: FastifyRequest,
    reply: FastifyReply,
    subscriptionRef: string,
    log: FastifyBaseLogger,
  ) {
    let outcome: SyncOutcome;
    try {
      outcome = await syncSubscription({
        subscriptions: storage.subscriptions,
        processor,
        events,
        subscriptionRef,
        now,
      });
    } catch (err) {
      log.error(
        { err, subscriptionRef },
        'Stripe webhook could not read a subscription; Stripe will redeliver',
      );
      const detail = 'The subscription could not be read now (Stripe or the database is unreachable); retry.';
      return sendProblem(reply, request, base, 'service_unavailable', detail);
    }
    log.info({ subscriptionRef, outcome }, 'Stripe subscription event');
    return reply.code(200).send({ received: true, outcome });
  }

  app.post('/stripe', hidden, async (request, reply) => {
    if (!secret) {
      return sendProblem(
        reply,
        request,
        base,
        'not_configured',
        'Stripe webhooks need COLONY_PAYMENT_PROCESSOR=stripe and STRIPE_WEBHOOK_SECRET on this server.',
      );
    }
    const event = verified(request, reply, secret);
    if (!event) return reply;
    const reference = finishedCheckoutOf(event);
    const log = request.log.child({ stripeEvent: event.id, stripeEventType: event.type });
    const subscriptionRef = subscriptionEventOf(event);
    if (subscriptionRef) return subscriptionEvent(request, reply, subscriptionRef, log);
    if (!reference) return reply.code(200).send({ received: true });
    const handoff = await storage.billingHandoffs.get(reference);
    if (handoff?.processor !== 'stripe') {
      log.info({ reference }, 'Stripe webhook for a Checkout Session Colony did not start; ignored');
      return reply.code(200).send({ received: true });
    }
    let result: FinishOutcome;
    try {
      // The hand-off names the session and the account that started paying, as the return's cookie does.
      result = await finishCheckout({
        storage,
        checkout,
        processor,
        events,
        sessionId: handoff.checkoutSessionId,
        reference,
        accountId: handoff.accountId,
        now: now(),
      });
    } catch (err) {
      log.error({ err, reference }, 'Stripe webhook could not confirm a checkout; Stripe will redeliver');
      const detail = 'The payment could not be confirmed now (Stripe or the database is unreachable); retry.';
      return sendProblem(reply, request, base, 'service_unavailable', detail);
    }
    log.info(
      { reference, checkoutSession: handoff.checkoutSessionId, outcome: result.outcome },
      'Stripe webhook',
    );
    // A 2xx tells Stripe to stop. Stripe's API says the Checkout Session is not complete although the
    // event does: answer non-2xx, so Stripe redelivers (for up to three days) and we ask again then.
    if (result.outcome === 'open') {
      return sendProblem(
        reply,
        request,
        base,
        'conflict',
        `Stripe reports Checkout Session ${reference} as not complete; nothing was recorded.`,
      );
    }
    // Expired, finished by another account or gone: nothing a redelivery could change. Awaiting a delayed
    // payment: `checkout.session.async_payment_succeeded` comes when it clears and finishes the checkout.
    return reply.code(200).send({ received: true, outcome: result.outcome });
  });
}
