// `colony logout`: revokes the stored tokens (RFC 7009) and forgets the login; an unreachable server
// still gets the local login removed, and the user is told.

import { loginTarget } from '../../client-from-env.ts';
import { printJson } from '../../output.ts';
import { revokeTokens } from '../../sdk/authorization-server.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const { io } = ctx;
  const { endpoint, store } = await loginTarget(io.env, ctx.endpoint);
  const stored = store.get(endpoint);
  if (!stored) {
    io.err(`colony: not logged in to ${endpoint}`);
    io.err('hint: `colony login` signs in; `--endpoint <url>` names another server');
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
  if (ctx.json) printJson(io, { endpoint, revoked });
  else io.out(`Logged out of ${endpoint}${revoked ? '' : ' (locally only)'}`);
  return 0;
};
