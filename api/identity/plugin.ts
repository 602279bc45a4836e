// Identity on the root server: session cookies for every plugin, then the account pages.
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { renewSessionCookie } from './accounts/current-account.ts';
import { identityPages } from './pages/routes.ts';

/**
 * Registered on the root instance before the surfaces, so currentAccount() works in any plugin:
 * @fastify/cookie is not encapsulated and parses cookies for every route.
 */
export async function registerIdentity(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie, { secret: app.colony.identity.cookieSecret });
  app.addHook('onSend', async (request, reply, payload) => {
    renewSessionCookie(request, reply);
    return payload;
  });
  await app.register(identityPages);
}
