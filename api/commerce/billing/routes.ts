// The hosted billing page (continue_url) and its hand-off to the payment processor and back.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Storage } from '../../app-storage.ts';
import { currentAccount, requireAccount } from '../../identity/accounts/current-account.ts';
import { useBrowserSession } from '../../identity/browser-session.ts';
import { csrfToken, isGenuineFormPost } from '../../identity/pages/csrf.ts';
import { page } from '../../shared/html.ts';
import { UniqueViolationError } from '../../storage/sql-driver.ts';
import type { CheckoutSession } from '../checkout-session.ts';
import type { CommerceOptions } from '../commerce-services.ts';
import { REFERENCE_PLACEHOLDER, type StartedCheckout } from '../processors/processor.ts';
import { TEST_TAX_RATES, TestProcessor } from '../processors/test-processor.ts';
import { renderTestProcessorPage } from '../processors/test-processor-page.ts';
import { type SubscriptionRecord, SubscriptionsRepo } from '../subscriptions-repo.ts';
import { renderBillingPage, renderMissingCheckout } from './billing-page.ts';
import { changePlan, type FinishOutcome, finishCheckout, protocolOf } from './finish-checkout.ts';

const hidden = { schema: { hide: true } };
const HTML = 'text/html; charset=utf-8';

type Params = { Params: { id: string } };
type RefParams = Params & { Querystring: { reference?: string } };

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type(HTML).header('cache-control', 'no-store').send(body);

const forbidden = (reply: FastifyReply, message: string) =>
  html(reply, 403, page('Not allowed', `<h1>Not allowed</h1><p>${message}</p>`));

const testPayment = z.object({
  name: z.string().trim().min(1).max(100),
  country: z.enum(Object.keys(TEST_TAX_RATES) as [string, ...string[]]),
  postal_code: z.string().trim().min(1).max(20),
});

const PROCESSOR_DOWN =
  'The payment processor could not be reached. Nothing was charged; try again in a moment.';

const payable = (s: CheckoutSession) =>
  (s.status === 'ready_for_payment' || s.status === 'requires_escalation') && s.cart.problems.length === 0;

export async function billingPages(app: FastifyInstance, opts: CommerceOptions): Promise<void> {
  await useBrowserSession(app);
  await app.register(formbody, { bodyLimit: 16_384 });
  const { config, storage, commerce, now } = opts;
  const { checkout, processor, orderEvents: events } = commerce;
  const base = config.baseUrl;

  const load = (id: string) => checkout.get(protocolOf(id), id);

  /**
   * What this account gets from this checkout: a finished one its order and subscription; an open one
   * a change of its live plan, or a new plan with the trial only if it never had one.
   */
  async function accountTerms(session: CheckoutSession, accountId: string | undefined) {
    const order = session.status === 'completed' ? await storage.orders.bySession(session.id) : undefined;
    const owner = order?.accountId ?? accountId;
    const subscription = owner ? await storage.subscriptions.ofAccount(owner) : undefined;
    const trialAvailable = owner ? !(await storage.orders.anyOf(owner)) : true;
    return { order, subscription, trialAvailable };
  }

  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    notice?: string,
    status = 200,
  ) {
    const session = await load(id);
    if (!session) return html(reply, 404, renderMissingCheckout());
    const account = await currentAccount(request);
    return html(
      reply,
      status,
      renderBillingPage({
        session,
        account,
        csrf: csrfToken(request, reply),
        now: now(),
        testMode: processor.testMode,
        sandbox: config.environment === 'sandbox',
        ...(await accountTerms(session, account?.id)),
        ...(notice ? { notice } : {}),
      }),
    );
  }

  app.get<Params>('/checkout/:id', hidden, async (request, reply) => show(request, reply, request.params.id));

  app.post<Params>('/checkout/:id/pay', hidden, async (request, reply) => {
    const account = await requireAccount(request, reply);
    if (!account) return reply;
    if (!isGenuineFormPost(request, (request.body as Record<string, unknown> | undefined)?._csrf)) {
      return forbidden(reply, 'This form has expired. Go back, reload the page and try again.');
    }
    const id = request.params.id;
    const session = await load(id);
    if (!session) return html(reply, 404, renderMissingCheckout());
    if (!payable(session)) return reply.redirect(`/checkout/${encodeURIComponent(id)}`, 303);
    const terms = await accountTerms(session, account.id);
    // The page said so before this click: with a live plan, this checkout changes it.
    if (SubscriptionsRepo.live(terms.subscription))
      return changeAndShow(request, reply, session, terms.subscription);
    // One free trial per account, not one per purchase.
    const trialDays = terms.trialAvailable ? session.cart.trialDays : 0;
    return handOff(request, reply, session, account, trialDays);
  });

  async function changeAndShow(
    request: FastifyRequest,
    reply: FastifyReply,
    session: CheckoutSession,
    current: SubscriptionRecord,
  ) {
    try {
      await changePlan({ storage, checkout, processor, events, session, current, now: now() });
    } catch (err) {
      request.log.error({ err, processor: processor.name }, 'payment processor refused a plan change');
      return show(request, reply, session.id, PROCESSOR_DOWN, 503);
    }
    return reply.redirect(`/checkout/${encodeURIComponent(session.id)}`, 303);
  }

  /** Starts the processor's hosted checkout and records the hand-off, then sends the owner there. */
  async function handOff(
    request: FastifyRequest,
    reply: FastifyReply,
    session: CheckoutSession,
    account: { id: string; email: string },
    trialDays: number,
  ) {
    const id = session.id;
    const here = `${base}/checkout/${encodeURIComponent(id)}`;
    let started: StartedCheckout;
    try {
      started = await processor.start({
        sessionId: id,
        accountId: account.id,
        accountEmail: account.email,
        lines: session.cart.lines,
        trialDays,
        successUrl: `${here}/return?reference=${REFERENCE_PLACEHOLDER}`,
        cancelUrl: here,
        expiresAt: session.expiresAt,
        now: now(),
      });
    } catch (err) {
      request.log.error({ err, processor: processor.name }, 'payment processor refused to start a checkout');
      return show(request, reply, id, PROCESSOR_DOWN, 503);
    }
    try {
      await storage.billingHandoffs.open({
        reference: started.reference,
        processor: processor.name,
        checkoutSessionId: id,
        accountId: account.id,
        data: { trial_days: trialDays, subtotal: session.cart.subtotal },
        createdAt: now(),
      });
    } catch (err) {
      // Stripe hands back the same Checkout Session for a repeated click: the hand-off already exists.
      if (!(err instanceof UniqueViolationError)) throw err;
    }
    return reply.redirect(started.redirectUrl, 303);
  }

  app.get<RefParams>('/checkout/:id/return', hidden, async (request, reply) => {
    const account = await requireAccount(request, reply);
    if (!account) return reply;
    const id = request.params.id;
    let result: FinishOutcome;
    try {
      result = await finishCheckout({
        storage,
        checkout,
        processor,
        events,
        sessionId: id,
        reference: request.query.reference ?? '',
        accountId: account.id,
        now: now(),
      });
    } catch (err) {
      request.log.error({ err, processor: processor.name }, 'payment processor could not confirm a checkout');
      return show(request, reply, id, PROCESSOR_DOWN, 503);
    }
    if (result.outcome === 'completed') return reply.redirect(`/checkout/${encodeURIComponent(id)}`, 303);
    if (result.outcome === 'not_yours')
      return forbidden(reply, 'This payment was started by another account.');
    if (result.outcome === 'already_subscribed')
      return forbidden(
        reply,
        'This account already has a Colony plan, so this second payment was canceled at the processor. Open the checkout again to change your plan instead.',
      );
    if (result.outcome === 'finished_by_another')
      return forbidden(
        reply,
        'Another account already finished this checkout; nothing was recorded for yours.',
      );
    const notice = RETURN_NOTICES[result.outcome];
    return show(request, reply, id, notice);
  });

  if (processor instanceof TestProcessor) registerTestProcessorPage(app, processor, storage);
}

// What the owner reads on coming back without a finished payment. A delayed payment must not invite a
// second one: its webhook completes the checkout when the money clears.
const NOT_FINISHED = 'The payment was not finished yet. Continue to payment to try again.';
const RETURN_NOTICES: Record<'open' | 'expired' | 'awaiting_payment' | 'not_found', string> = {
  open: NOT_FINISHED,
  expired: 'The payment page expired before you finished. Continue to payment again.',
  awaiting_payment:
    'Your payment is on its way. This checkout completes by itself once it clears; do not pay again.',
  not_found: NOT_FINISHED,
};

function registerTestProcessorPage(app: FastifyInstance, processor: TestProcessor, storage: Storage): void {
  async function handoffFor(request: FastifyRequest<RefParams>, reply: FastifyReply) {
    const account = await requireAccount(request, reply);
    if (!account) return undefined;
    const handoff = await storage.billingHandoffs.get(request.query.reference ?? '');
    if (
      handoff?.processor !== 'test' ||
      handoff.checkoutSessionId !== request.params.id ||
      handoff.accountId !== account.id
    ) {
      await forbidden(reply, 'This test payment belongs to another account or checkout.');
      return undefined;
    }
    return handoff;
  }

  app.get<RefParams>('/checkout/:id/test-processor', hidden, async (request, reply) => {
    const handoff = await handoffFor(request, reply);
    if (!handoff) return reply;
    const view = {
      sessionId: request.params.id,
      reference: handoff.reference,
      csrf: csrfToken(request, reply),
    };
    return html(reply, 200, renderTestProcessorPage(view));
  });

  app.post<RefParams>('/checkout/:id/test-processor', hidden, async (request, reply) => {
    const handoff = await handoffFor(request, reply);
    if (!handoff) return reply;
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!isGenuineFormPost(request, body._csrf))
      return forbidden(reply, 'This form has expired. Go back and try again.');
    const parsed = testPayment.safeParse(body);
    if (!parsed.success) {
      const view = {
        sessionId: request.params.id,
        reference: handoff.reference,
        csrf: csrfToken(request, reply),
      };
      return html(
        reply,
        400,
        renderTestProcessorPage({ ...view, error: 'Enter a name, a country and a postal code.' }),
      );
    }
    await processor.pay(handoff.reference, {
      name: parsed.data.name,
      country: parsed.data.country,
      postalCode: parsed.data.postal_code,
    });
    return reply.redirect(
      `/checkout/${encodeURIComponent(request.params.id)}/return?reference=${handoff.reference}`,
      303,
    );
  });
}
