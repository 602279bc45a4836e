// What the browser-page helpers read: decorated once on the server by buildServer(), because any plugin
// may ask for the signed-in account (currentAccount), with or without the cookie hooks.
import type { FastifyRequest } from 'fastify';
import type { IdentityServices } from './identity-services.ts';

/** What the page helpers (currentAccount, csrfToken, …) and useBrowserSession() read. */
export interface BrowserSession {
  /** Form posts must come from this origin. */
  baseUrl: string;
  identity: Pick<IdentityServices, 'accounts' | 'officeMembers' | 'cookiePolicy' | 'cookieSecret'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The session cookie's services, for every plugin of the server. */
    browserSession: BrowserSession;
  }
}

export function browserSessionOf(request: FastifyRequest): BrowserSession {
  return request.server.browserSession;
}
