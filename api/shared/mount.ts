// Rows of a mount table (api/routes.ts): a surface plugin, its prefix and the services it is given,
// and the JSON API scope that several surfaces share (problem+json, JSON bodies, request budget).
import type { FastifyInstance, FastifyPluginAsync, onRequestHookHandler } from 'fastify';
import { authenticateFirst } from './authenticate-first.ts';
import type { CredentialVerifier } from './identity.ts';
import { installProblemHandlers } from './problem-handlers.ts';

/** One row: registering it mounts one encapsulated plugin on the instance it is given. */
export interface Mount {
  register(app: FastifyInstance): Promise<void>;
}

/** The plugin under `prefix` (none: where it is registered), given exactly `options`. */
// biome-ignore lint/suspicious/noExplicitAny: a plugin's options are whatever object it declares.
export function mount<O extends Record<string, any>>(
  plugin: FastifyPluginAsync<O>,
  options: O,
  prefix?: string,
): Mount {
  return {
    async register(app) {
      await app.register(plugin, prefix === undefined ? options : { ...options, prefix });
    },
  };
}

/** Registers the rows in order, each awaited, as buildServer() always has. */
export async function mountAll(app: FastifyInstance, mounts: readonly Mount[]): Promise<void> {
  for (const row of mounts) await row.register(app);
}

export interface JsonApiOptions {
  baseUrl: string;
  /** The request budget, charged before anything else runs in the scope. */
  rateLimit: onRequestHookHandler;
  /** Who may call the protected routes: they authenticate right after the budget, before validation. */
  verifiers: readonly CredentialVerifier[];
}

/**
 * Makes `scope` a JSON API (/api/v1, /api/snapshots): every error and unknown route as problem+json,
 * bodies in JSON only (anything else is a 415 rather than a confusing validation error), one budget,
 * and authentication of protected routes before validation.
 */
export function useJsonApi(scope: FastifyInstance, opts: JsonApiOptions): void {
  installProblemHandlers(scope, opts.baseUrl);
  scope.removeContentTypeParser('text/plain');
  scope.addHook('onRequest', opts.rateLimit);
  scope.addHook('onRoute', authenticateFirst({ baseUrl: opts.baseUrl, verifiers: opts.verifiers }));
}

/** A JSON API scope holding other surfaces: /api/v1 on either listener. */
export async function jsonApiScope(
  scope: FastifyInstance,
  opts: JsonApiOptions & { mounts: readonly Mount[] },
): Promise<void> {
  useJsonApi(scope, opts);
  await mountAll(scope, opts.mounts);
}
