// `colony integrations connect <id> --office <office>`: prints the browser link that connects an
// OAuth integration (open it signed in as a member of the office).
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const { office, instance } = ctx.flags;
  const client = await clientFor(ctx);
  const link = await client.connectUrl(
    String(office),
    ctx.args[0] as string,
    typeof instance === 'string' ? instance : undefined,
  );
  printRecord(ctx, link, () => [link.connectUrl]);
  return 0;
};
