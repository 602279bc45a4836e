// The browser-session cookie: signed, HttpOnly, SameSite=Lax, Secure (and __Host-) behind HTTPS.
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import { SESSION_TTL_MS } from './account-service.ts';

export interface CookiePolicy {
  name: string;
  secure: boolean;
}

export function cookiePolicy(baseUrl: string): CookiePolicy {
  const secure = baseUrl.startsWith('https://');
  // __Host- binds the cookie to this exact host and path /, which browsers allow only when Secure.
  return { name: secure ? '__Host-colony_session' : 'colony_session', secure };
}

export function sessionCookieOptions(policy: CookiePolicy, expiresAt: number): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: policy.secure,
    signed: true,
    expires: new Date(expiresAt),
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  };
}

export function setSessionCookie(
  reply: FastifyReply,
  policy: CookiePolicy,
  token: string,
  expiresAt: number,
): void {
  reply.setCookie(policy.name, token, sessionCookieOptions(policy, expiresAt));
}

export function clearSessionCookie(reply: FastifyReply, policy: CookiePolicy): void {
  reply.clearCookie(policy.name, { path: '/', httpOnly: true, sameSite: 'lax', secure: policy.secure });
}
