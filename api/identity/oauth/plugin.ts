// Mounts the authorization server in Fastify: its endpoints, our interaction pages, the metadata.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { allowBrowsers } from '../../shared/browser-access.ts';
import { ANY_ORIGIN } from '../../shared/cors-answer.ts';
import { InputRefusedError } from '../../shared/input-guards.ts';
import { securePages } from '../../shared/page-security.ts';
import { useBrowserSession } from '../browser-session.ts';
import type { IdentityServices } from '../identity-services.ts';
import { interactionRoutes } from './interaction-routes.ts';
import { oauthRoutes } from './provider-config.ts';
import { protectedResourceMetadata, resourceServers } from './resources.ts';

const hidden = { schema: { hide: true } };
const METHODS = ['GET', 'POST', 'OPTIONS', 'DELETE', 'PUT'] as const;

/** The endpoints a browser-based client calls itself; the rest of /oauth/* are cookie pages. */
const BROWSER_ENDPOINTS = [
  oauthRoutes.registration,
  oauthRoutes.token,
  oauthRoutes.revocation,
  oauthRoutes.introspection,
  oauthRoutes.device_authorization,
  oauthRoutes.pushed_authorization_request,
  oauthRoutes.userinfo,
  oauthRoutes.jwks,
];

export interface OAuthOptions {
  config: Config;
  identity: IdentityServices;
}

export async function oauthPlugin(app: FastifyInstance, opts: OAuthOptions): Promise<void> {
  securePages(app);
  const { config, identity } = opts;
  await useBrowserSession(app);
  const provider = identity.authorizationServer;
  const handle = provider.callback();
  const base = new URL(config.baseUrl);

  // oidc-provider is a Koa application that reads its own bodies, so this scope parses none.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // Input the guards refuse (U+0000 in the query) is answered as an OAuth error, as the provider would.
    scope.setErrorHandler((err, _request, reply) => {
      if (!(err instanceof InputRefusedError)) return reply.send(err);
      return reply.code(400).send({ error: 'invalid_request', error_description: err.message });
    });
    // oidc-provider builds endpoint URLs from the request; these headers make them the issuer's.
    const proto = base.protocol.slice(0, -1);
    const host = base.host;
    const forward = async (request: FastifyRequest, reply: FastifyReply) => {
      // The client address is the one Fastify trusted (any the client sent itself is replaced).
      const headers = request.raw.headers;
      headers['x-forwarded-proto'] = proto;
      headers['x-forwarded-host'] = host;
      headers['x-forwarded-for'] = request.ip;
      reply.hijack();
      const set = reply.getHeaders();
      for (const name in set) {
        const value = set[name];
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      await handle(request.raw, reply.raw);
    };
    // One route per method rather than one route for all: a single-method route has its request timer
    // bound when it is added (api/observability/metrics.ts), so a request builds no series key.
    const routes = (target: FastifyInstance, url: string) => {
      for (const method of METHODS) target.route({ method, url, schema: { hide: true }, handler: forward });
    };
    routes(scope, '/oauth/*');
    // What a browser client needs (discovery, keys, registration, tokens) is open to any page; the
    // pages under /oauth/* that use the session cookie are not.
    await scope.register(async (open) => {
      allowBrowsers(open, ANY_ORIGIN, { routesAnswerOptions: true });
      for (const url of [...BROWSER_ENDPOINTS, '/.well-known/openid-configuration']) routes(open, url);
    });
  });
  await app.register(interactionRoutes, { config, identity });

  await app.register(async (open) => {
    allowBrowsers(open, ANY_ORIGIN);
    // RFC 8414 metadata is the OpenID Connect discovery document: both list the same endpoints.
    let metadata: string | undefined;
    open.get('/.well-known/oauth-authorization-server', hidden, async (_request, reply) => {
      if (!metadata) {
        const res = await app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
        if (res.statusCode !== 200) throw new Error(`discovery answered ${res.statusCode}`);
        metadata = res.body;
      }
      return reply.type('application/json; charset=utf-8').send(metadata);
    });

    const [root, mcp] = resourceServers(config.baseUrl);
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource', root],
      ['/.well-known/oauth-protected-resource/mcp', mcp],
    ] as const) {
      if (!resource) continue;
      const body = JSON.stringify(protectedResourceMetadata(config.baseUrl, resource));
      open.get(path, hidden, async (_request, reply) =>
        reply.type('application/json; charset=utf-8').send(body),
      );
    }
  });
}
