// `colony backups delete <snapshot_id>`: deletes a finished snapshot and what it holds.
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const id = ctx.args[0] as string;
  const client = await clientFor(ctx);
  await client.deleteSnapshot(id);
  printRecord(ctx, { id, deleted: true }, () => [`Deleted ${id}`]);
  return 0;
};
