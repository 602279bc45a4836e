// Cross-site request forgery defence for the HTML forms: a double-submit token and an Origin check.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestCookie } from '../accounts/request-cookies.ts';
import { browserSessionOf } from '../session-scope.ts';

const CSRF_COOKIE = 'colony_csrf';

/** The form token of this browser, set as a cookie the first time a form is shown. */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  const existing = requestCookie(request, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32,64}$/.test(existing)) return existing;
  const token = randomBytes(24).toString('base64url');
  const secure = browserSessionOf(request).identity.cookiePolicy.secure;
  reply.setCookie(CSRF_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure });
  return token;
}

/**
 * A form post is genuine when it carries the browser's own token and, if the browser says where it
 * came from (every current one does on POST), that origin is ours.
 */
export function isGenuineFormPost(request: FastifyRequest, submitted: unknown): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== new URL(browserSessionOf(request).baseUrl).origin) return false;
  const cookie = requestCookie(request, CSRF_COOKIE);
  if (typeof submitted !== 'string' || !cookie) return false;
  const a = Buffer.from(submitted);
  const b = Buffer.from(cookie);
  return a.length === b.length && timingSafeEqual(a, b);
}
