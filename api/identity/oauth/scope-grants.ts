// Pure: which resource an authorization request is for, and which scopes it may ask for.
import { oidcScopes } from '../scopes.ts';

export const isOidcScope = (s: string): boolean => (oidcScopes as readonly string[]).includes(s);
const splitScope = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean);

/**
 * The resource of a request that names none: the whole service (the base URL) when it asks for any
 * resource scope, else none, so that a sign-in alone gets a token for userinfo only.
 */
export function defaultResourceFor(baseUrl: string, scope: string | undefined): string | undefined {
  return splitScope(scope).some((s) => !isOidcScope(s)) ? baseUrl : undefined;
}
