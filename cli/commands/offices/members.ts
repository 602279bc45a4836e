// `colony offices members list|add|remove --office <office>`: who may operate an office.
import { clientFor } from '../../client-from-env.ts';
import { printList, printRecord } from '../../output.ts';
import type { OfficeMember } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

export const list: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const { members } = await client.listMembers(String(ctx.flags.office));
  printList<OfficeMember>(
    ctx,
    members,
    [
      { header: 'account', cell: (m) => m.accountId },
      { header: 'email', cell: (m) => m.email },
      { header: 'role', cell: (m) => m.role },
      { header: 'name', cell: (m) => m.name },
    ],
    'No members yet.',
  );
  return 0;
};

export const add: Handler = async (ctx) => {
  const { office, email, role } = ctx.flags;
  const client = await clientFor(ctx);
  const member = await client.putMember(String(office), {
    email: String(email),
    ...(typeof role === 'string' ? { role } : {}),
  });
  printRecord(ctx, member, () => [`${member.email} is ${member.role} of ${member.officeId}`]);
  return 0;
};

export const remove: Handler = async (ctx) => {
  const office = String(ctx.flags.office);
  const accountId = ctx.args[0] as string;
  const client = await clientFor(ctx);
  await client.removeMember(office, accountId);
  printRecord(ctx, { officeId: office, accountId, removed: true }, () => [
    `Removed ${accountId} from ${office}`,
  ]);
  return 0;
};
