// Identity on the root server: the account pages and the authorization server.
import type { FastifyInstance } from 'fastify';
import { oauthPlugin } from './oauth/plugin.ts';
import { identityPages } from './pages/routes.ts';

/**
 * Registered on the root instance before the surfaces. Each page plugin, here and in other
 * surfaces, brings its own cookie handling through useBrowserSession() (browser-session.ts).
 */
export async function registerIdentity(app: FastifyInstance): Promise<void> {
  await app.register(identityPages);
  await app.register(oauthPlugin);
}
