// Colony's own cancel, for the test processor (which has no hosted portal): like Stripe's
// cancel_at_period_end, the plan runs to the end of its period or trial and can be kept until then.
// A confirmation page first; both forms carry the CSRF token and name the subscription they act on.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Account } from '../../identity/accounts/account.ts';
import { requireAccount } from '../../identity/accounts/current-account.ts';
import { csrfToken } from '../../identity/pages/csrf.ts';
import { html } from '../../identity/pages/page-reply.ts';
import type { OrderRecord } from '../orders-repo.ts';
import type { TestProcessor } from '../processors/test-processor.ts';
import { cancelAtOf, currentPeriodEnd } from '../processors/test-processor-billing.ts';
import { type SubscriptionRecord, SubscriptionsRepo } from '../subscriptions-repo.ts';
import { renderPlanNotFound } from './account-portal-page.ts';
import { renderCancelPage } from './portal-actions.ts';
import { formPoster, PLAN_PATH } from './portal-forms.ts';
import type { PortalDeps } from './portal-view.ts';

const hidden = { schema: { hide: true } };
const namesSubscription = z.object({ subscription: z.string().max(200) });

type Show = (
  request: FastifyRequest,
  reply: FastifyReply,
  account: Account,
  extra?: { focus?: OrderRecord; notice?: string; status?: number },
) => Promise<unknown>;

export function ownCancelRoutes(
  app: FastifyInstance,
  opts: PortalDeps & { processor: TestProcessor; show: Show },
): void {
  const { storage, processor, now, show } = opts;

  /** The poster's own live subscription, when the form names it; otherwise the 404 is sent. */
  async function named(request: FastifyRequest, reply: FastifyReply, account: Account) {
    const form = namesSubscription.safeParse(request.body ?? {});
    const s = await storage.subscriptions.ofAccount(account.id);
    if (form.success && SubscriptionsRepo.live(s) && s.id === form.data.subscription) return s;
    request.log.warn({ accountId: account.id }, "plan form named a subscription that is not the account's");
    await html(reply, 404, renderPlanNotFound());
    return undefined;
  }

  const pending = async (s: SubscriptionRecord) =>
    cancelAtOf(await storage.billingHandoffs.get(s.processorRef));

  app.get(`${PLAN_PATH}/cancel`, hidden, async (request, reply) => {
    const account = await requireAccount(request, reply);
    if (!account) return reply;
    const s = await storage.subscriptions.ofAccount(account.id);
    if (!SubscriptionsRepo.live(s) || (await pending(s)) !== null) return reply.redirect(PLAN_PATH, 303);
    const view = { subscription: s, endsAt: currentPeriodEnd(s, now()), csrf: csrfToken(request, reply) };
    return html(reply, 200, renderCancelPage(view));
  });

  app.post(`${PLAN_PATH}/cancel`, hidden, async (request, reply) => {
    const account = await formPoster(request, reply);
    const s = account && (await named(request, reply, account));
    if (!s) return reply;
    const endsAt = await processor.cancelAtPeriodEnd(s);
    request.log.info(
      { accountId: s.accountId, subscriptionId: s.id, endsAt },
      'plan set to end at period end',
    );
    return reply.redirect(PLAN_PATH, 303);
  });

  app.post(`${PLAN_PATH}/resume`, hidden, async (request, reply) => {
    const account = await formPoster(request, reply);
    const s = account && (await named(request, reply, account));
    if (!account || !s) return reply;
    if (!(await processor.resume(s.processorRef)))
      return show(request, reply, account, {
        notice: 'This plan has no cancel to take back: it renews, or it has already ended.',
        status: 409,
      });
    request.log.info({ accountId: s.accountId, subscriptionId: s.id }, 'plan cancel taken back');
    return reply.redirect(PLAN_PATH, 303);
  });
}
