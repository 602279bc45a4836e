// Cookies parsed on first use: only the browser pages read them, so the JSON API never pays for it.
import { parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

const jars = new WeakMap<FastifyRequest, Record<string, string | undefined>>();

/** One cookie as the browser sent it (a signed cookie still carries its signature), or undefined. */
export function requestCookie(request: FastifyRequest, name: string): string | undefined {
  let jar = jars.get(request);
  if (!jar) {
    const header = request.headers.cookie;
    jar = header ? parseCookie(header) : {};
    jars.set(request, jar);
  }
  return jar[name];
}
