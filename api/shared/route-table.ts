// Every route an instance serves, recorded as it is added, so a request nothing serves can be told apart:
// a path that exists with other methods (405 and Allow) or no such path at all (404).
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { pathOf } from './framework-errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The routes of this server (collectRoutes); absent on instances built without it. */
    routeTable?: RouteTable;
  }
}

export interface RouteEntry {
  method: string;
  /** The pattern as registered, prefix included: `/api/v1/jobs/:id`. */
  url: string;
  schema: RouteOptions['schema'];
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A find-my-way pattern as a regular expression over a raw path: `:name` (with an optional `(regex)`)
 * is one parameter inside a segment, `*` the rest of the path, `::` a literal colon.
 */
export function patternRegex(url: string): RegExp {
  let source = '';
  const parts = url.split(/(::|:[A-Za-z0-9_]+(?:\([^)]*\))?|\*)/);
  for (const part of parts) {
    if (part === '') continue;
    if (part === '::') source += ':';
    else if (part === '*') source += '.*';
    else if (part.startsWith(':')) {
      const custom = /\((.*)\)$/.exec(part)?.[1];
      source += custom ? `(?:${custom.replace(/^\^|\$$/g, '')})` : '[^/]+?';
    } else source += escapeRegex(part);
  }
  return new RegExp(`^${source}$`);
}

export class RouteTable {
  readonly #entries: RouteEntry[] = [];
  readonly #patterns = new Map<string, { regex: RegExp; methods: Set<string> }>();

  add(route: Pick<RouteOptions, 'method' | 'url' | 'schema'>): void {
    for (const method of [route.method].flat()) {
      // A CORS preflight handler (OPTIONS, often on a wildcard) is not an operation of the path.
      if (method === 'OPTIONS') continue;
      this.#entries.push({ method, url: route.url, schema: route.schema });
      const known = this.#patterns.get(route.url);
      if (known) known.methods.add(method);
      else this.#patterns.set(route.url, { regex: patternRegex(route.url), methods: new Set([method]) });
    }
  }

  /** The methods some route serves at this raw path (without its query); empty when none matches. */
  methodsAt(path: string): string[] {
    const methods = new Set<string>();
    for (const { regex, methods: served } of this.#patterns.values()) {
      if (regex.test(path)) for (const m of served) methods.add(m);
    }
    return [...methods];
  }

  entries(): readonly RouteEntry[] {
    return this.#entries;
  }
}

/** Records every route added to `app` from now on, its child scopes' included, as `app.routeTable`. */
export function collectRoutes(app: FastifyInstance): RouteTable {
  const table = new RouteTable();
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => table.add(route));
  return table;
}

/** The methods the request's path is served with on its server (none when it keeps no table). */
export function servedMethods(request: FastifyRequest): string[] {
  return request.server.routeTable?.methodsAt(pathOf(request)) ?? [];
}
