// `colony login`: device authorization in a browser; the tokens are stored for the endpoint
// (credentials.json) and later commands use them.

import { loginTarget } from '../../client-from-env.ts';
import { printJson } from '../../output.ts';
import { ColonyClient, type Me } from '../../sdk/client.ts';
import type { CredentialStore } from '../../sdk/credential-store.ts';
import { deviceLogin } from '../../sdk/device-login.ts';
import { StoredLoginSource } from '../../sdk/stored-login.ts';
import type { Handler } from '../../spec.ts';

/** The profile of the new login, or undefined when it cannot be read: the login itself succeeded. */
async function profileOf(endpoint: string, store: CredentialStore): Promise<Me | undefined> {
  try {
    return await new ColonyClient({ endpoint, auth: new StoredLoginSource(store, endpoint) }).me();
  } catch {
    return undefined;
  }
}

const who = (me: Me | undefined) =>
  me ? ` as ${me.account ? `${me.account.name} <${me.account.email}>` : me.name}` : '';

export const run: Handler = async (ctx) => {
  const { io } = ctx;
  const scope = typeof ctx.flags.scope === 'string' ? ctx.flags.scope : undefined;
  const { endpoint, store } = await loginTarget(io.env, ctx.endpoint);
  if (scope && !scope.split(/\s+/).includes('offline_access'))
    io.err('note: without offline_access there is no refresh token; the login ends with its access token');
  const session = await deviceLogin({
    endpoint,
    ...(scope ? { scope } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
    prompt: (p) => {
      io.err(`To sign in to ${endpoint}, open this page in a browser and approve the code:\n`);
      io.err(`  ${p.url}\n`);
      io.err(`  code: ${p.userCode}   (expires in ${Math.round(p.expiresInSeconds / 60)} minutes)\n`);
      io.err('Waiting for approval…');
    },
  });
  store.save(endpoint, session);
  const me = await profileOf(endpoint, store);
  if (ctx.json) printJson(io, { endpoint, scope: session.scope, account: me?.account ?? null });
  else io.out(`Logged in to ${endpoint}${who(me)}`);
  io.err(`scopes: ${session.scope}; session stored in ${store.file}`);
  return 0;
};
