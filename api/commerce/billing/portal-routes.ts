// The account's plan page and its forms: /account/plan, each order's permalink (/account/orders/:id),
// changing the plan through the billing page, the processor's hosted portal, and (without one)
// Colony's own cancel at period end with its confirmation step.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { buildCatalog } from '../../domain/pricing/catalog.ts';
import type { Account } from '../../identity/accounts/account.ts';
import { requireAccount } from '../../identity/accounts/current-account.ts';
import { useBrowserSession } from '../../identity/browser-session.ts';
import { csrfToken } from '../../identity/pages/csrf.ts';
import { html } from '../../identity/pages/page-reply.ts';
import { securePages } from '../../shared/page-security.ts';
import { priceCart } from '../checkout-pricing.ts';
import type { OrderRecord } from '../orders-repo.ts';
import { TestProcessor } from '../processors/test-processor.ts';
import { SubscriptionsRepo } from '../subscriptions-repo.ts';
import { renderOrderNotFound, renderPortalPage } from './account-portal-page.ts';
import { ownCancelRoutes } from './own-cancel-routes.ts';
import { BACKUPS_ITEM } from './portal-actions.ts';
import { formPoster, PLAN_PATH } from './portal-forms.ts';
import { loadPortal, type PortalDeps, planChoices } from './portal-view.ts';

const hidden = { schema: { hide: true } };

const PROCESSOR_DOWN = 'The payment processor could not be reached. Nothing changed; try again in a moment.';

const portalForm = z.object({ flow: z.enum(['manage', 'cancel']).default('manage') });

export async function accountPortal(app: FastifyInstance, opts: PortalDeps): Promise<void> {
  securePages(app);
  await useBrowserSession(app);
  await app.register(formbody, { bodyLimit: 16_384 });
  const { storage, commerce } = opts;
  const { processor, checkout } = commerce;
  const plans = planChoices(opts.prices);
  const catalog = buildCatalog(opts.prices);
  const changeForm = z.object({
    item: z.enum(plans.map((p) => p.itemId) as [string, ...string[]]),
    backups: z.literal('yes').optional(),
  });

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    account: Account,
    extra: { focus?: OrderRecord; notice?: string; status?: number } = {},
  ) => {
    const loaded = await loadPortal(opts, account.id, request.log);
    const { status = 200, ...rest } = extra;
    return html(reply, status, renderPortalPage({ ...loaded, ...rest, csrf: csrfToken(request, reply) }));
  };

  app.get(PLAN_PATH, hidden, async (request, reply) => {
    const account = await requireAccount(request, reply);
    return account ? show(request, reply, account) : reply;
  });

  // An order's permalink: signed out, the sign-in page brings the owner back here. Another account's
  // order and no order at all get the same answer, so the page tells nobody which ids exist.
  app.get<{ Params: { id: string } }>('/account/orders/:id', hidden, async (request, reply) => {
    const account = await requireAccount(request, reply);
    if (!account) return reply;
    const id = request.params.id;
    const order = await storage.orders.get(id);
    if (order?.accountId === account.id) return show(request, reply, account, { focus: order });
    // Checkouts finished before orders had ids name the subscription they bought.
    const subscription = order ? undefined : await storage.subscriptions.ofAccount(account.id);
    if (subscription?.id === id) return show(request, reply, account);
    return html(reply, 404, renderOrderNotFound());
  });

  // The billing page's own change flow: a checkout for the chosen items, which that page presents as a
  // change of the live plan (or a purchase, without one) before the owner confirms anything.
  app.post(`${PLAN_PATH}/change`, hidden, async (request, reply) => {
    const account = await formPoster(request, reply);
    if (!account) return reply;
    const parsed = changeForm.safeParse(request.body ?? {});
    if (!parsed.success)
      return show(request, reply, account, { notice: 'Choose one of the plans.', status: 400 });
    const items = [{ itemId: parsed.data.item, quantity: 1 }];
    if (parsed.data.backups) items.push({ itemId: BACKUPS_ITEM, quantity: 1 });
    // A cart the billing page could not sell (Backups with an annual plan) is refused here, not there.
    const priced = priceCart(items, catalog, {
      trialDays: opts.prices.trialDays,
      priceListVersion: opts.prices.version,
    });
    const problem = 'cart' in priced ? priced.cart.problems[0]?.message : 'Choose one of the plans.';
    if (problem) return show(request, reply, account, { notice: problem, status: 400 });
    // Each form post opens a checkout: the agents' checkout budget, per account, bounds how many.
    const budget = await commerce.limiter.consume(`account:${account.id}`);
    if (!budget.allowed) {
      const notice = `Too many plan changes started. Wait ${budget.resetSeconds} seconds and try again.`;
      return show(request, reply, account, { notice, status: 429 });
    }
    const buyer = { email: account.email, fullName: account.name };
    const created = await checkout.create('acp', items, buyer, () => ({
      statusCode: 201,
      headers: {},
      body: '',
    }));
    if (created.outcome !== 'created') throw new Error(`plan change checkout: ${created.outcome}`);
    return reply.redirect(`/checkout/${encodeURIComponent(created.session.id)}`, 303);
  });

  // Stripe's hosted customer portal: payment methods, invoices and cancelling, back to this page.
  app.post(`${PLAN_PATH}/portal`, hidden, async (request, reply) => {
    const account = await formPoster(request, reply);
    if (!account) return reply;
    const subscription = await storage.subscriptions.ofAccount(account.id);
    const flow = portalForm.safeParse(request.body ?? {}).data?.flow ?? 'manage';
    // Nothing the processor's portal could show: the plan page says what there is.
    if (!subscription || subscription.processor !== processor.name) return reply.redirect(PLAN_PATH, 303);
    let url: string | undefined;
    try {
      const cancel = flow === 'cancel' && SubscriptionsRepo.live(subscription);
      url = await processor.portalUrl(
        subscription.processorRef,
        `${opts.config.baseUrl}${PLAN_PATH}`,
        cancel ? 'cancel' : 'manage',
      );
    } catch (err) {
      request.log.error({ err, processor: processor.name }, 'payment processor refused a portal session');
      return show(request, reply, account, { notice: PROCESSOR_DOWN, status: 503 });
    }
    return reply.redirect(url ?? PLAN_PATH, 303);
  });

  if (processor instanceof TestProcessor) ownCancelRoutes(app, { ...opts, processor, show });
}
