// `colony offices list`: the offices the credential may act on. The API has no list of offices; the
// profile (/api/v1/me) carries the person's memberships, or the offices an API key is limited to.
import { clientFor } from '../../client-from-env.ts';
import { printList } from '../../output.ts';
import type { Me } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

export interface OfficeRow {
  officeId: string;
  role: string | null;
}

/** Pure: the offices of a profile; an unrestricted credential without memberships lists none. */
export function officeRows(me: Me): OfficeRow[] {
  if (me.account?.memberships.length) return me.account.memberships.map((m) => ({ ...m }));
  return me.offices === '*' ? [] : me.offices.map((officeId) => ({ officeId, role: null }));
}

export const run: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const me = await client.me();
  const empty =
    me.offices === '*' && !me.account
      ? 'This credential may act on every office; the API does not list them.'
      : 'No offices yet. Create one with `colony offices create <office>`.';
  printList<OfficeRow>(
    ctx,
    officeRows(me),
    [
      { header: 'office', cell: (o) => o.officeId },
      { header: 'role', cell: (o) => o.role ?? '-' },
    ],
    empty,
  );
  return 0;
};
