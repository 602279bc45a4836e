// The cookie that carries a key reveal's ticket from the key-creating POST to the one page that shows it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestCookie } from '../accounts/request-cookies.ts';
import type { CookiePolicy } from '../accounts/session-cookie.ts';
import { KEY_REVEAL_TTL_MS } from '../keys/key-reveals.ts';

export const KEY_CREATED_PATH = '/account/keys/created';

// Sent only to the reveal page, never readable by scripts, never from another site.
const options = (policy: CookiePolicy) => ({
  path: KEY_CREATED_PATH,
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: policy.secure,
});
const nameOf = (policy: CookiePolicy) => (policy.secure ? '__Secure-colony_key_reveal' : 'colony_key_reveal');

export function setRevealTicket(reply: FastifyReply, policy: CookiePolicy, ticket: string): void {
  reply.setCookie(nameOf(policy), ticket, { ...options(policy), maxAge: KEY_REVEAL_TTL_MS / 1000 });
}

/** The ticket the browser holds, which it will not send again: the cookie is cleared here. */
export function takeRevealTicket(
  request: FastifyRequest,
  reply: FastifyReply,
  policy: CookiePolicy,
): string | undefined {
  const ticket = requestCookie(request, nameOf(policy));
  if (ticket !== undefined) reply.clearCookie(nameOf(policy), options(policy));
  return ticket;
}
