// `colony integrations secret delete <id> --office <office>`: removes the credentials and the
// integration's configuration from the office.
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const id = ctx.args[0] as string;
  const office = String(ctx.flags.office);
  const instance = typeof ctx.flags.instance === 'string' ? ctx.flags.instance : undefined;
  const client = await clientFor(ctx);
  await client.deleteSecret(office, id, instance);
  printRecord(ctx, { office, integrationId: id, deleted: true }, () => [`Deleted ${id} from ${office}`]);
  return 0;
};
