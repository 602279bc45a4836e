// The identity bench's ceilings: Colony on a storage the bench holds, and a bare oidc-provider over
// that same storage (same configuration, adapter and database, served by node:http with nothing in
// front), so a token Colony issued is introspected and refreshed by both.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { AccountService } from '../../api/identity/accounts/account-service.ts';
import { cookiePolicy } from '../../api/identity/accounts/session-cookie.ts';
import { createAuthorizationServer } from '../../api/identity/oauth/authorization-server.ts';
import { freePort, type ListeningServer, startTestServer } from '../support/server.ts';
import type { DisposableTarget } from '../support/storage-targets.ts';

/** A listening Colony whose storage the caller can reach, for a second server over the same database. */
export async function colonyOn(
  target: DisposableTarget,
  env: Record<string, string>,
): Promise<ListeningServer & { storage: Storage }> {
  const made = await target.create();
  const storage = await openStorage(made.target);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await startTestServer(
    { COLONY_BASE_URL: baseUrl, ...env },
    { storage, validateResponses: false, runJobs: false },
  );
  await server.app.listen({ port, host: '127.0.0.1' });
  return {
    ...server,
    baseUrl,
    storage,
    async close() {
      await server.close();
      await storage.close();
      await made.dispose();
    },
  };
}

/** oidc-provider as Colony configures it, over `storage`, with Colony's issuer, on a port of its own. */
export async function bareOidcProvider(
  storage: Storage,
  issuer: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const now = Date.now;
  const provider = await createAuthorizationServer({
    baseUrl: issuer,
    environment: 'production',
    repos: storage.identity,
    accounts: new AccountService(storage.identity.accounts, now),
    cookiePolicy: cookiePolicy(issuer),
    // Only the browser-session check of authorization requests reads it; the bench makes none.
    cookieSecret: 'bench-unused-cookie-secret',
    now,
  });
  const server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
