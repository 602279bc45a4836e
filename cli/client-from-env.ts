// The SDK client the commands use: COLONY_API_KEY when set, else the login `colony login` stored for
// the endpoint (--endpoint, else COLONY_ENDPOINT, else the latest login, else http://localhost:8080).

import { ColonyClient } from './sdk/client.ts';
import { CredentialStore, endpointKey } from './sdk/credential-store.ts';
import { StoredLoginSource } from './sdk/stored-login.ts';

export const DEFAULT_ENDPOINT = 'http://localhost:8080';

export interface LoginTarget {
  endpoint: string;
  store: CredentialStore;
}

/** The endpoint a login command works on, and the store that holds its login. */
export function loginTarget(env: NodeJS.ProcessEnv, endpoint?: string): LoginTarget {
  const store = CredentialStore.fromEnv(env);
  const chosen = endpoint ?? env.COLONY_ENDPOINT ?? store.defaultEndpoint() ?? DEFAULT_ENDPOINT;
  return { endpoint: endpointKey(chosen), store };
}

/** A client for any command: the API key wins; a stored login if there is one; else anonymous. */
export function clientFrom(env: NodeJS.ProcessEnv, opts: { endpoint?: string } = {}): ColonyClient {
  const { endpoint, store } = loginTarget(env, opts.endpoint);
  if (env.COLONY_API_KEY) return new ColonyClient({ endpoint, apiKey: env.COLONY_API_KEY });
  const auth = store.get(endpoint) ? new StoredLoginSource(store, endpoint) : undefined;
  return new ColonyClient({ endpoint, auth });
}

/** A client that must use the stored login (API keys cannot manage keys); not logged in throws. */
export function loginClientFrom(env: NodeJS.ProcessEnv, opts: { endpoint?: string } = {}): ColonyClient {
  const { endpoint, store } = loginTarget(env, opts.endpoint);
  const auth = new StoredLoginSource(store, endpoint);
  auth.load();
  return new ColonyClient({ endpoint, auth });
}
