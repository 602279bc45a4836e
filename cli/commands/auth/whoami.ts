// `colony whoami [--endpoint URL] [--json]`: the account and credential the CLI acts as.

import type { Command } from '../../args.ts';
import { flagValue } from '../../args.ts';
import { clientFrom, loginClientFrom } from '../../client-from-env.ts';
import type { Me } from '../../sdk/client.ts';

/** Pure: the lines `whoami` prints for a profile. */
export function describeMe(me: Me): string[] {
  const lines = [me.account ? `${me.account.name} <${me.account.email}> (${me.account.id})` : me.name];
  const via = me.credentialId ?? me.clientId;
  lines.push(`credential: ${me.credential}${via ? ` (${via})` : ''}`);
  lines.push(`scopes: ${me.scopes.join(' ') || '(none)'}`);
  const memberships = me.account?.memberships ?? [];
  if (memberships.length)
    lines.push(`offices: ${memberships.map((m) => `${m.officeId} (${m.role})`).join(', ')}`);
  else lines.push(`offices: ${me.offices === '*' ? 'all' : me.offices.join(', ') || '(none)'}`);
  return lines;
}

export const whoami: Command = {
  summary: 'Show the account and credential the CLI uses (COLONY_API_KEY wins over the login)',
  usage: 'colony whoami [--endpoint <url>] [--json]',
  async run(args, io) {
    const endpointFlag = args.flags.endpoint;
    if (endpointFlag === true || args.positionals.length > 0) {
      io.err(`usage: ${whoami.usage}`);
      return 64;
    }
    const opts = endpointFlag ? { endpoint: flagValue(endpointFlag) as string } : {};
    const client = io.env.COLONY_API_KEY ? clientFrom(io.env, opts) : loginClientFrom(io.env, opts);
    const me = await client.me();
    if (args.flags.json) io.out(JSON.stringify(me, null, 2));
    else for (const line of describeMe(me)) io.out(line);
    return 0;
  },
};
