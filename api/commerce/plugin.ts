// Commerce on one server: ACP, UCP, their discovery documents, the hosted billing page, the policy pages
// and the expiry sweeper.
import type { FastifyInstance } from 'fastify';
import { acpPlugin } from '../acp/plugin.ts';
import { businessProfile } from '../ucp/business-profile.ts';
import { PlatformProfiles } from '../ucp/platform-profile.ts';
import { ucpPlugin } from '../ucp/plugin.ts';
import { CURRENT_UCP_VERSION, UCP_VERSIONS } from '../ucp/versions.ts';
import { acpDiscovery } from './acp-discovery.ts';
import { billingPages } from './billing/routes.ts';
import { stripeWebhook } from './billing/stripe-webhook.ts';
import { startExpirySweeper } from './expiry-sweeper.ts';
import { renderPrivacyPage, renderTermsPage } from './legal-pages.ts';

const hidden = { schema: { hide: true } };
// UCP asks for public, cacheable profiles (at least 60 s); the ACP document follows the same rule.
const DISCOVERY_CACHE = 'public, max-age=300';
const HTML = 'text/html; charset=utf-8';

export async function commercePlugin(app: FastifyInstance): Promise<void> {
  const { config, prices, now } = app.colony;
  const base = config.baseUrl;
  const handlerSpecUrl = `${base}/docs/commerce.md`;
  const profiles = new PlatformProfiles({
    allowPrivateAddresses: config.commerce.allowInsecureProfiles,
    now,
  });

  await app.register(acpPlugin);
  await app.register(ucpPlugin, {
    prefix: '/ucp/v1',
    profiles,
    allowInsecureProfiles: config.commerce.allowInsecureProfiles,
    handlerSpecUrl,
  });

  await app.register(billingPages);
  await app.register(stripeWebhook, { prefix: '/billing/webhooks' });

  const acpDoc = JSON.stringify(acpDiscovery(base));
  app.get('/.well-known/acp.json', hidden, async (_request, reply) =>
    reply.header('cache-control', DISCOVERY_CACHE).type('application/json').send(acpDoc),
  );
  for (const version of UCP_VERSIONS) {
    const doc = JSON.stringify(businessProfile(base, version, handlerSpecUrl));
    const path = version === CURRENT_UCP_VERSION ? '/.well-known/ucp' : `/.well-known/ucp/${version}`;
    app.get(path, hidden, async (_request, reply) =>
      reply.header('cache-control', DISCOVERY_CACHE).type('application/json').send(doc),
    );
  }

  const terms = renderTermsPage(base, prices.trialDays);
  const privacy = renderPrivacyPage(base);
  app.get('/legal/terms', hidden, async (_request, reply) => reply.type(HTML).send(terms));
  app.get('/legal/privacy', hidden, async (_request, reply) => reply.type(HTML).send(privacy));

  const sweeper = startExpirySweeper({
    commerce: app.colony.commerce,
    idempotency: app.colony.storage.checkoutIdempotency,
    everyMs: config.commerce.sweepSeconds * 1000,
    now,
    log: app.log,
  });
  app.addHook('onClose', async () => {
    sweeper.stop();
    await profiles.close();
  });
}
