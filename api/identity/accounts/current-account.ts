// currentAccount(request): the account of the signed-in browser session, usable from any plugin.
import { unsign } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bindOfficeLookup } from '../offices/office-access.ts';
import { browserSessionOf } from '../session-scope.ts';
import type { Account } from './account.ts';
import { requestCookie } from './request-cookies.ts';
import { setSessionCookie } from './session-cookie.ts';

const resolved = new WeakMap<FastifyRequest, Promise<Account | null>>();
const renewals = new WeakMap<FastifyRequest, { token: string; expiresAt: number }>();

/** The raw session token of this request's cookie when its signature is valid. */
export function sessionToken(request: FastifyRequest): string | undefined {
  // Plain functions rather than request decorators: any page scope may ask (see browser-session.ts).
  const { cookiePolicy, cookieSecret } = browserSessionOf(request).identity;
  const raw = requestCookie(request, cookiePolicy.name);
  if (!raw) return undefined;
  const unsigned = unsign(raw, cookieSecret);
  return unsigned.valid && unsigned.value ? unsigned.value : undefined;
}

async function resolve(request: FastifyRequest): Promise<Account | null> {
  const token = sessionToken(request);
  if (!token) return null;
  const { accounts, officeMembers } = browserSessionOf(request).identity;
  const found = await accounts.resolveSession(token);
  if (!found) return null;
  if (found.renewedUntil) renewals.set(request, { token, expiresAt: found.renewedUntil });
  return bindOfficeLookup(found.account, officeMembers);
}

/**
 * The signed-in account, or null. Resolved once per request however many plugins ask; the
 * Account it returns can be passed to canActOnOffice().
 */
export function currentAccount(request: FastifyRequest): Promise<Account | null> {
  let account = resolved.get(request);
  if (!account) {
    account = resolve(request);
    resolved.set(request, account);
  }
  return account;
}

/** Forgets the cached answer (after sign-in or sign-out changes it within one request). */
export function forgetCurrentAccount(request: FastifyRequest): void {
  resolved.delete(request);
}

/** Where to send someone who must sign in first: back here afterwards, path and query kept. */
export function signInUrl(request: FastifyRequest): string {
  return `/signin?return_to=${encodeURIComponent(request.url)}`;
}

/** The signed-in account, or null after answering with a 303 to the sign-in page. */
export async function requireAccount(request: FastifyRequest, reply: FastifyReply): Promise<Account | null> {
  const account = await currentAccount(request);
  if (!account) {
    await reply.redirect(signInUrl(request), 303);
    return null;
  }
  return account;
}

/** Re-sends the cookie when the session's expiry slid forward during this request. */
export function renewSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  const renewal = renewals.get(request);
  if (renewal)
    setSessionCookie(
      reply,
      browserSessionOf(request).identity.cookiePolicy,
      renewal.token,
      renewal.expiresAt,
    );
}
