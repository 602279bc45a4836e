// `colony backups create --office <office> [--wait]`: starts a snapshot job on the server and, with
// --wait, follows it; Ctrl-C stops following, the job carries on.
import { clientFor } from '../../client-from-env.ts';
import type { Handler } from '../../spec.ts';
import { startedOrFollowed } from './follow-job.ts';
import { snapshotLines } from './show.ts';

export const run: Handler = async (ctx) => {
  const { office, description } = ctx.flags;
  const key = ctx.flags['idempotency-key'];
  const client = await clientFor(ctx);
  const started = await client.createSnapshot(String(office), {
    description: typeof description === 'string' ? description : undefined,
    idempotencyKey: typeof key === 'string' ? key : undefined,
  });
  return startedOrFollowed(ctx, started, {
    kind: 'snapshot',
    read: () => client.snapshotPolled(started.id),
    lines: snapshotLines,
    check: `colony backups show ${started.id}`,
  });
};
