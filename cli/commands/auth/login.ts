// `colony login [--endpoint URL] [--scope "..."]`: device authorization in a browser; the tokens are
// stored for the endpoint (credentials.json) and later commands use them.

import type { Command } from '../../args.ts';
import { flagValue } from '../../args.ts';
import { loginTarget } from '../../client-from-env.ts';
import { ColonyClient } from '../../sdk/client.ts';
import type { CredentialStore } from '../../sdk/credential-store.ts';
import { DEFAULT_LOGIN_SCOPES, deviceLogin } from '../../sdk/device-login.ts';
import { StoredLoginSource } from '../../sdk/stored-login.ts';

/** ` as Name <email>`, or nothing when the profile cannot be read: the login itself succeeded. */
async function whoOf(endpoint: string, store: CredentialStore): Promise<string> {
  try {
    const me = await new ColonyClient({ endpoint, auth: new StoredLoginSource(store, endpoint) }).me();
    return ` as ${me.account ? `${me.account.name} <${me.account.email}>` : me.name}`;
  } catch {
    return '';
  }
}

export const login: Command = {
  summary: 'Sign in through the browser (device code); the session is stored for the endpoint',
  usage: `colony login [--endpoint <url>] [--scope "<scopes>"]   (default scopes: ${DEFAULT_LOGIN_SCOPES.join(' ')})`,
  async run(args, io) {
    const { endpoint: endpointFlag, scope } = args.flags;
    if (endpointFlag === true || scope === true || args.positionals.length > 0) {
      io.err(`usage: ${login.usage}`);
      return 64;
    }
    const { endpoint, store } = loginTarget(io.env, flagValue(endpointFlag));
    if (scope && !scope.split(/\s+/).includes('offline_access'))
      io.err('note: without offline_access there is no refresh token; the login ends with its access token');
    const session = await deviceLogin({
      endpoint,
      ...(scope ? { scope } : {}),
      prompt: (p) => {
        io.err(`To sign in to ${endpoint}, open this page in a browser and approve the code:\n`);
        io.err(`  ${p.url}\n`);
        io.err(`  code: ${p.userCode}   (expires in ${Math.round(p.expiresInSeconds / 60)} minutes)\n`);
        io.err('Waiting for approval…');
      },
    });
    store.save(endpoint, session);
    io.out(`Logged in to ${endpoint}${await whoOf(endpoint, store)}`);
    io.err(`scopes: ${session.scope}; session stored in ${store.file}`);
    return 0;
  },
};
