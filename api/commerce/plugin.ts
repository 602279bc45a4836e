// Commerce pages on one server: the hosted billing page, the Stripe webhook, the policy pages, the expiry
// sweeper and (with the test processor) the plan-end sweeper. The checkout protocols (ACP, UCP) are
// mounted above this, by api/commerce-surfaces.ts.

import type { FastifyInstance } from 'fastify';
import { securePages } from '../shared/page-security.ts';
import type { PollerGate } from '../shared/poller-gate.ts';
import { planEndSweeper } from './billing/plan-end-sweeper.ts';
import { billingPages } from './billing/routes.ts';
import { stripeWebhook } from './billing/stripe-webhook.ts';
import type { CommerceOptions } from './commerce-services.ts';
import { expirySweeper } from './expiry-sweeper.ts';
import { renderPrivacyPage, renderTermsPage } from './legal-pages.ts';

const hidden = { schema: { hide: true } };
const HTML = 'text/html; charset=utf-8';

export async function commercePlugin(
  app: FastifyInstance,
  opts: CommerceOptions & { pollers: PollerGate },
): Promise<void> {
  securePages(app);
  const { config, prices, now } = opts;
  const base = config.baseUrl;
  await app.register(billingPages, opts);
  await app.register(stripeWebhook, { ...opts, prefix: '/billing/webhooks' });

  const terms = renderTermsPage(base, prices.trialDays);
  const privacy = renderPrivacyPage(base);
  app.get('/legal/terms', hidden, async (_request, reply) => reply.type(HTML).send(terms));
  app.get('/legal/privacy', hidden, async (_request, reply) => reply.type(HTML).send(privacy));

  // Cluster-wide work: with a poller Lease only its holder sweeps.
  const detach = opts.pollers.attach(
    expirySweeper({
      commerce: opts.commerce,
      idempotency: opts.storage.checkoutIdempotency,
      everyMs: config.commerce.sweepSeconds * 1000,
      now,
      log: app.log,
    }),
  );
  app.addHook('onClose', detach);
  // Without the processor's own events, a test-processor cancel that fell due is ended here.
  if (opts.commerce.processor.name !== 'test') return;
  const detachPlanEnds = opts.pollers.attach(
    planEndSweeper({
      subscriptions: opts.storage.subscriptions,
      handoffs: opts.storage.billingHandoffs,
      events: opts.commerce.orderEvents,
      everyMs: config.commerce.planEndSweepSeconds * 1000,
      now,
      log: app.log,
    }),
  );
  app.addHook('onClose', detachPlanEnds);
}
