// `colony offices create <office>`: the office's namespace (and, in offices mode, Colony's RoleBindings).
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const office = await client.createOffice(ctx.args[0] as string);
  printRecord(ctx, office, () => [`Office ${office.officeId} (namespace ${office.namespace})`]);
  return 0;
};
