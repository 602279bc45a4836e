// `colony logout [--endpoint URL]`: revokes the stored tokens (RFC 7009) and forgets the login; an
// unreachable server still gets the local login removed, and the user is told.

import type { Command } from '../../args.ts';
import { flagValue } from '../../args.ts';
import { loginTarget } from '../../client-from-env.ts';
import { revokeTokens } from '../../sdk/authorization-server.ts';

export const logout: Command = {
  summary: 'Revoke the stored login at the server and remove it from this machine',
  usage: 'colony logout [--endpoint <url>]',
  async run(args, io) {
    const endpointFlag = args.flags.endpoint;
    if (endpointFlag === true || args.positionals.length > 0) {
      io.err(`usage: ${logout.usage}`);
      return 64;
    }
    const { endpoint, store } = loginTarget(io.env, flagValue(endpointFlag));
    const stored = store.get(endpoint);
    if (!stored) {
      io.err(`colony: not logged in to ${endpoint}`);
      return 1;
    }
    const tokens = [
      ...(stored.refreshToken ? [{ token: stored.refreshToken, hint: 'refresh_token' as const }] : []),
      { token: stored.accessToken, hint: 'access_token' as const },
    ];
    let revoked = true;
    try {
      await revokeTokens(stored.issuer, tokens);
    } catch (err) {
      revoked = false;
      io.err(
        `colony: could not revoke the session at the server: ${(err as Error).message}. ` +
          `The login is removed from this machine; until they expire the tokens stay valid unless you disconnect the Colony CLI at ${endpoint}/account.`,
      );
    }
    store.remove(endpoint);
    io.out(`Logged out of ${endpoint}${revoked ? '' : ' (locally only)'}`);
    return 0;
  },
};
