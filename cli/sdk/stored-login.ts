// A bearer token from the login `colony login` stored for an endpoint, refreshed when it has expired
// or the API refused it, and saved again, under the store's lock so parallel commands agree.
import { AuthError } from './auth-error.ts';
import type { refreshTokens } from './authorization-server.ts';
import type { BearerSource } from './client.ts';
import type { CredentialStore, StoredLogin } from './credential-store.ts';
import { loginFromTokens, needsRefresh } from './session-expiry.ts';

export interface StoredLoginDeps {
  now?: () => number;
  refresh?: typeof refreshTokens;
}

export class StoredLoginSource implements BearerSource {
  private readonly store: CredentialStore;
  private readonly endpoint: string;
  private readonly now: () => number;
  private readonly refresh: typeof refreshTokens;

  constructor(store: CredentialStore, endpoint: string, deps: StoredLoginDeps = {}) {
    this.store = store;
    this.endpoint = endpoint;
    this.now = deps.now ?? Date.now;
    // openid-client loads only when a token has to be refreshed, not on every command.
    this.refresh =
      deps.refresh ?? (async (...args) => (await import('./authorization-server.ts')).refreshTokens(...args));
  }

  /** The stored login; not logged in is an error that says what to run. */
  load(): StoredLogin {
    const login = this.store.get(this.endpoint);
    if (!login)
      throw new AuthError(
        'not_logged_in',
        `not logged in to ${this.endpoint}; run \`colony login --endpoint ${this.endpoint}\` or set COLONY_API_KEY`,
      );
    return login;
  }

  async token(): Promise<string> {
    const login = this.load();
    return needsRefresh(login, this.now()) ? this.refreshed(login.accessToken) : login.accessToken;
  }

  renew(rejected: string): Promise<string | undefined> {
    return this.refreshed(rejected);
  }

  private refreshed(stale: string): Promise<string> {
    return this.store.withLock(async () => {
      const current = this.load();
      // Another command refreshed while this one waited for the lock: use its token.
      if (current.accessToken !== stale && !needsRefresh(current, this.now())) return current.accessToken;
      if (!current.refreshToken)
        throw new AuthError(
          'login_expired',
          `the login for ${this.endpoint} has expired (no refresh token); run \`colony login\` again`,
        );
      const tokens = await this.refresh(current.issuer, current.refreshToken, current.resource);
      const next = loginFromTokens(tokens, current, this.now());
      this.store.save(this.endpoint, next, { makeDefault: false });
      return next.accessToken;
    });
  }
}
