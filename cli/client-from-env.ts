// The SDK client a command uses, for the endpoint it was given (--endpoint, else COLONY_ENDPOINT,
// else the latest login, else http://localhost:8080): COLONY_API_KEY when set, else the login
// `colony login` stored for that endpoint. The credential store (and zod) load only when needed.

import { ColonyClient } from './sdk/client.ts';
import type { CredentialStore } from './sdk/credential-store.ts';
import { endpointKey } from './sdk/endpoint-key.ts';
import type { CommandContext } from './spec.ts';

export const DEFAULT_ENDPOINT = 'http://localhost:8080';

export interface LoginTarget {
  endpoint: string;
  store: CredentialStore;
}

/** The endpoint a command works on, and the store that holds its login. */
export async function loginTarget(env: NodeJS.ProcessEnv, endpoint?: string): Promise<LoginTarget> {
  const { CredentialStore } = await import('./sdk/credential-store.ts');
  const store = CredentialStore.fromEnv(env);
  const chosen = endpoint ?? env.COLONY_ENDPOINT ?? store.defaultEndpoint() ?? DEFAULT_ENDPOINT;
  return { endpoint: endpointKey(chosen), store };
}

/** The endpoint alone: the store is read only when neither --endpoint nor COLONY_ENDPOINT names one. */
export async function endpointFor(env: NodeJS.ProcessEnv, endpoint?: string): Promise<string> {
  const named = endpoint ?? env.COLONY_ENDPOINT;
  return named ? endpointKey(named) : (await loginTarget(env)).endpoint;
}

/**
 * The client for a command, by what its table entry needs: `none` may go anonymous, `any` needs an
 * API key or a stored login, `login` the stored login itself (API keys cannot manage keys). A missing
 * credential fails before any request, saying what to run.
 */
export async function clientFor(
  ctx: Pick<CommandContext, 'spec' | 'endpoint' | 'io'>,
): Promise<ColonyClient> {
  const apiKey = ctx.io.env.COLONY_API_KEY;
  const need = ctx.spec.auth;
  if (apiKey && need !== 'login')
    return new ColonyClient({ endpoint: await endpointFor(ctx.io.env, ctx.endpoint), apiKey });
  const { endpoint, store } = await loginTarget(ctx.io.env, ctx.endpoint);
  if (need === 'none' && !store.get(endpoint)) return new ColonyClient({ endpoint });
  const { StoredLoginSource } = await import('./sdk/stored-login.ts');
  const auth = new StoredLoginSource(store, endpoint);
  auth.load();
  return new ColonyClient({ endpoint, auth });
}
