// `colony keys revoke <key_id>`: the key fails at once.
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const id = ctx.args[0] as string;
  const client = await clientFor(ctx);
  await client.revokeKey(id);
  printRecord(ctx, { id, revoked: true }, () => [`Revoked ${id}`]);
  return 0;
};
