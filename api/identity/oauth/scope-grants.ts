// Pure: which scopes an authorization request may ask for, given the resources it names, so the
// consent page lists exactly what the issued tokens will carry.
import { oidcScopes, scopesSupported } from '../scopes.ts';
import { findResourceServer } from './resources.ts';

export const isOidcScope = (s: string): boolean => (oidcScopes as readonly string[]).includes(s);
const splitScope = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean);

/**
 * The resource of a request that names none: the whole service (the base URL) when it asks for any
 * resource scope, else none, so that a sign-in alone gets a token for userinfo only.
 */
export function defaultResourceFor(baseUrl: string, scope: string | undefined): string | undefined {
  return splitScope(scope).some((s) => !isOidcScope(s)) ? baseUrl : undefined;
}

export interface UngrantableScope {
  scope: string;
  reason: string;
}

/**
 * The first requested scope no token of this request would carry, and why; undefined when every
 * one would be granted. `resources` are the request's resource indicators (after the default).
 */
export function ungrantableScope(
  baseUrl: string,
  scope: string | undefined,
  resources: readonly string[],
): UngrantableScope | undefined {
  const requested = splitScope(scope);
  const accepted = new Set(resources.flatMap((r) => findResourceServer(baseUrl, r)?.scopes ?? []));
  const named = resources.length > 0 ? resources.join(' ') : 'no resource (a sign-in only)';
  for (const s of requested) {
    if (!scopesSupported.includes(s)) return { scope: s, reason: `${s} is not a Colony scope` };
    if ((s === 'profile' || s === 'email') && !requested.includes('openid'))
      return { scope: s, reason: `${s} is an OpenID Connect scope: ask for openid with it` };
    if (!isOidcScope(s) && !accepted.has(s))
      return { scope: s, reason: `${s} is not a scope of the requested resource ${named}` };
  }
  return undefined;
}

/** The resource indicators of a request, however the parameter arrived. */
export function resourceList(resource: unknown): string[] {
  if (typeof resource === 'string') return [resource];
  return Array.isArray(resource) ? resource.filter((r): r is string => typeof r === 'string') : [];
}
