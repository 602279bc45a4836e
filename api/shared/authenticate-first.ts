// Protected routes authenticate before anything looks at the request: a caller without a valid token gets
// the 401 challenge, never a validation error that tells it what the body, params or query should be.
import type { onRouteHookHandler, RouteOptions } from 'fastify';
import { authenticateNow, verifyingStep } from './authenticate.ts';
import type { CredentialVerifier } from './identity.ts';

/** A route is protected when its OpenAPI security demands a bearer token, with no anonymous alternative. */
export function requiresBearer(schema: RouteOptions['schema']): boolean {
  const security = (schema as { security?: unknown } | undefined)?.security;
  return (
    Array.isArray(security) &&
    security.length > 0 &&
    security.every((s: unknown) => typeof s === 'object' && s !== null && 'bearer' in s)
  );
}

/**
 * An onRoute hook for a scope: every protected route in it gets an onRequest step that authenticates (after
 * the scope's own onRequest hooks, the request budget among them), before the body is read and validated.
 * The handler's own authenticate() call then reuses the verified token. A callback hook: a cached
 * verification lets the request go on at once, with no promise made.
 */
export function authenticateFirst(auth: {
  baseUrl: string;
  verifiers: readonly CredentialVerifier[];
}): onRouteHookHandler {
  const step = verifyingStep((request) => authenticateNow(request, auth.baseUrl, auth.verifiers));
  return (route) => {
    if (!requiresBearer(route.schema)) return;
    route.onRequest = [...[route.onRequest ?? []].flat(), step];
  };
}
