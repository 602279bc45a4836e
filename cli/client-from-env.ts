// The SDK client a command uses, for the endpoint it was given (--endpoint, else COLONY_ENDPOINT,
// else the latest login, else http://localhost:8080): COLONY_API_KEY when set, else the login
// `colony login` stored for that endpoint.

import { ColonyClient } from './sdk/client.ts';
import { CredentialStore, endpointKey } from './sdk/credential-store.ts';
import { StoredLoginSource } from './sdk/stored-login.ts';
import type { CommandContext } from './spec.ts';

export const DEFAULT_ENDPOINT = 'http://localhost:8080';

export interface LoginTarget {
  endpoint: string;
  store: CredentialStore;
}

/** The endpoint a command works on, and the store that holds its login. */
export function loginTarget(env: NodeJS.ProcessEnv, endpoint?: string): LoginTarget {
  const store = CredentialStore.fromEnv(env);
  const chosen = endpoint ?? env.COLONY_ENDPOINT ?? store.defaultEndpoint() ?? DEFAULT_ENDPOINT;
  return { endpoint: endpointKey(chosen), store };
}

/**
 * The client for a command, by what its table entry needs: `none` may go anonymous, `any` needs an
 * API key or a stored login, `login` the stored login itself (API keys cannot manage keys). A missing
 * credential fails before any request, saying what to run.
 */
export function clientFor(ctx: Pick<CommandContext, 'spec' | 'endpoint' | 'io'>): ColonyClient {
  const { endpoint, store } = loginTarget(ctx.io.env, ctx.endpoint);
  const apiKey = ctx.io.env.COLONY_API_KEY;
  const need = ctx.spec.auth;
  if (apiKey && need !== 'login') return new ColonyClient({ endpoint, apiKey });
  const auth = new StoredLoginSource(store, endpoint);
  if (need === 'none' && !store.get(endpoint)) return new ColonyClient({ endpoint });
  auth.load();
  return new ColonyClient({ endpoint, auth });
}
