// CORS in Fastify: a scope opts its routes into a BrowserPolicy, and one root onRequest hook answers
// preflights and adds the headers before any budget, authentication or body parsing runs.
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  RouteOptions,
} from 'fastify';
import { type BrowserPolicy, corsAnswer, originAllowed } from './cors-answer.ts';
import { type Mount, mountAll } from './mount.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route from a browser page on another origin (set by allowBrowsers()). */
    browserAccess?: BrowserPolicy;
    /** Marks the OPTIONS routes allowBrowsers() adds itself. */
    preflightRoute?: boolean;
  }
}

export interface AllowBrowsersOptions {
  /** The scope's routes answer OPTIONS themselves (protocol fallbacks, a proxied server): add none. */
  routesAnswerOptions?: boolean;
}

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/**
 * Opts every route registered in `scope` from now on into `policy`. A preflight needs a route to land
 * on, so each path gets an OPTIONS route; asked without a preflight, it answers 204 with `Allow`.
 */
export function allowBrowsers(
  scope: FastifyInstance,
  policy: BrowserPolicy,
  opts: AllowBrowsersOptions = {},
): void {
  const methodsByPath = new Map<string, Set<string>>();
  scope.addHook(
    'onRoute',
    function optIn(this: FastifyInstance, route: RouteOptions & { routePath: string }) {
      route.config = { ...route.config, browserAccess: policy };
      const methods = [route.method].flat();
      if (opts.routesAnswerOptions || route.config.preflightRoute || methods.includes('OPTIONS')) return;
      // A prefix's own route comes as '/api/v1' and, for its HEAD twin, as '/api/v1/': one path.
      const path = route.url.replace(/(.)\/$/, '$1');
      const known = methodsByPath.get(path);
      if (known) {
        for (const m of methods) known.add(m);
        return;
      }
      const allow = new Set(methods);
      methodsByPath.set(path, allow);
      // Under a prefix, '' is the prefix itself; '/' registers it with and without the trailing slash.
      this.route({
        method: 'OPTIONS',
        url: route.routePath === '' ? '/' : route.routePath,
        schema: { hide: true },
        config: { preflightRoute: true },
        handler: async (_request, reply) =>
          reply
            .code(204)
            .header('allow', [...allow, 'OPTIONS'].join(', '))
            .send(),
      });
    },
  );
}

/** A scope holding `mounts` under `policy`: how api/routes.ts opens whole surfaces to browsers. */
export async function browserAccessScope(
  scope: FastifyInstance,
  opts: { policy: BrowserPolicy; mounts: readonly Mount[] },
): Promise<void> {
  allowBrowsers(scope, opts.policy);
  await mountAll(scope, opts.mounts);
}

/** The root onRequest hook: CORS headers for routes that opted in, and the preflight's 204. */
export function answerBrowsers(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
  const policy = request.routeOptions.config.browserAccess;
  if (!policy) {
    done();
    return;
  }
  const answer = corsAnswer(policy, {
    method: request.method,
    origin: single(request.headers.origin),
    requestMethod: single(request.headers['access-control-request-method']),
  });
  reply.headers(answer.headers);
  if (answer.preflight) {
    // Answered here, so a preflight is never charged to a budget nor asked for a credential.
    reply.code(204).header('content-length', '0').send();
    return;
  }
  done();
}

/** Whether the request's `Origin` (if any) is one `policy` allows: the /mcp guard's question. */
export function requestOriginAllowed(request: FastifyRequest, policy: BrowserPolicy): boolean {
  return originAllowed(policy, single(request.headers.origin));
}
