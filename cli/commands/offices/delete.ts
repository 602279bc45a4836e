// `colony offices delete <office>`: Colony lets go of the namespace, which keeps everything else.
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const officeId = ctx.args[0] as string;
  const client = await clientFor(ctx);
  await client.deleteOffice(officeId);
  printRecord(ctx, { officeId, deleted: true }, () => [`Deleted office ${officeId}`]);
  return 0;
};
