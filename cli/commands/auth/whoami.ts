// `colony whoami`: the account and credential the CLI acts as.

import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { Me } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

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

export const run: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const me = await client.me();
  printRecord(ctx, me, () => describeMe(me));
  return 0;
};
