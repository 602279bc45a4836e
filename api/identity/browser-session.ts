// Cookies and session renewal for the scopes that serve browser pages, and only for them.
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { renewSessionCookie } from './accounts/current-account.ts';

/**
 * Called at the top of each page plugin (account pages, the authorization server's interactions,
 * Connect, billing). The JSON surfaces take bearer tokens only, so they carry no cookie hooks at all:
 * an onSend hook, even an empty one, is a measurable share of a cached GET.
 */
export async function useBrowserSession(app: FastifyInstance): Promise<void> {
  // Added before the cookie plugin so it runs before the plugin's onSend writer, which serialises the
  // Set-Cookie headers. Callback style: an async hook would cost every page request a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    renewSessionCookie(request, reply);
    done(null, payload);
  });
  // No parsing hook: requestCookie() parses on first use.
  await app.register(fastifyCookie, { secret: app.browserSession.identity.cookieSecret, hook: false });
}
