// Identity on the root server: session cookies for every plugin, then the account pages.
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { renewSessionCookie } from './accounts/current-account.ts';
import { oauthPlugin } from './oauth/plugin.ts';
import { identityPages } from './pages/routes.ts';

/**
 * Registered on the root instance before the surfaces, so currentAccount() works in any plugin:
 * @fastify/cookie is not encapsulated and parses cookies for every route.
 */
export async function registerIdentity(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie, { secret: app.colony.identity.cookieSecret });
  // Callback style on purpose: an async hook would cost every request (signed in or not) a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    renewSessionCookie(request, reply);
    done(null, payload);
  });
  await app.register(identityPages);
  await app.register(oauthPlugin);
}
