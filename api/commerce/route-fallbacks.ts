// Routes for the methods a path does not serve, so a protocol answers them in its own error format
// (the server-wide not-found handler speaks problem+json). They carry `config.fallback`.
import type { FastifyInstance, HTTPMethods, RouteHandlerMethod } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on routes that only answer "no such operation" in a protocol's own error format. */
    fallback?: boolean;
  }
}

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function registerFallbacks(
  app: FastifyInstance,
  url: string,
  served: readonly HTTPMethods[],
  handler: RouteHandlerMethod,
): void {
  // GET routes answer HEAD by themselves.
  const taken = new Set<HTTPMethods>(served.includes('GET') ? [...served, 'HEAD'] : served);
  const method = METHODS.filter((m) => !taken.has(m));
  if (method.length > 0)
    app.route({ method, url, handler, schema: { hide: true }, config: { fallback: true } });
}
