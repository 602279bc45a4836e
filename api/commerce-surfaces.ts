// Mounts the checkout protocols over the checkout domain: ACP at the root, UCP under /ucp/v1 (one checkout
// surface each, driven by its adapter), and their discovery documents, /.well-known/acp.json and /.well-known/ucp.
import type { FastifyInstance } from 'fastify';
import { acpAdapter } from './acp/adapter.ts';
import { acpDiscovery } from './acp/discovery.ts';
import { checkoutSurface } from './commerce/checkout-surface.ts';
import type { CommerceOptions } from './commerce/commerce-services.ts';
import { allowBrowsers } from './shared/browser-access.ts';
import { ANY_ORIGIN } from './shared/cors-answer.ts';
import { ucpAdapter } from './ucp/adapter.ts';
import { businessProfile, profilePath } from './ucp/business-profile.ts';
import { PlatformProfiles } from './ucp/platform-profile.ts';
import { UCP_VERSIONS } from './ucp/versions.ts';

// UCP asks for public, cacheable profiles (at least 60 s); the ACP document follows the same rule.
const DISCOVERY_CACHE = 'public, max-age=300';

/** The discovery documents: public, so any page may read them. */
async function discoveryDocuments(
  app: FastifyInstance,
  opts: { documents: [string, unknown][] },
): Promise<void> {
  allowBrowsers(app, ANY_ORIGIN);
  for (const [path, document] of opts.documents) {
    const body = JSON.stringify(document);
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', DISCOVERY_CACHE).type('application/json').send(body),
    );
  }
}

export async function commerceSurfaces(app: FastifyInstance, opts: CommerceOptions): Promise<void> {
  const { config, now } = opts;
  const base = config.baseUrl;
  const handlerSpecUrl = `${base}/docs/commerce.md`;
  const allowInsecureProfiles = config.commerce.allowInsecureProfiles;
  const profiles = new PlatformProfiles({ allowPrivateAddresses: allowInsecureProfiles, now });
  app.addHook('onClose', () => profiles.close());

  await app.register(checkoutSurface(acpAdapter), opts);
  await app.register(checkoutSurface(ucpAdapter({ profiles, allowInsecureProfiles, handlerSpecUrl })), {
    ...opts,
    prefix: '/ucp/v1',
  });
  const documents: [string, unknown][] = [
    ['/.well-known/acp.json', acpDiscovery(base)],
    ...UCP_VERSIONS.map((v): [string, unknown] => [profilePath(v), businessProfile(base, v, handlerSpecUrl)]),
  ];
  await app.register(discoveryDocuments, { documents });
}
