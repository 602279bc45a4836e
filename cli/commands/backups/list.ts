// `colony backups list`: snapshots, newest first.
import { clientFor } from '../../client-from-env.ts';
import { printList, printMore } from '../../output.ts';
import type { Snapshot } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const { office, status, limit, cursor } = ctx.flags;
  const client = await clientFor(ctx);
  const { data, nextCursor } = await client.listSnapshots({
    ...(typeof office === 'string' ? { office } : {}),
    ...(typeof status === 'string' ? { status } : {}),
    ...(typeof limit === 'number' ? { limit } : {}),
    ...(typeof cursor === 'string' ? { cursor } : {}),
  });
  printList<Snapshot>(
    ctx,
    data,
    [
      { header: 'id', cell: (s) => s.id },
      { header: 'office', cell: (s) => s.office },
      { header: 'status', cell: (s) => s.status },
      { header: 'trigger', cell: (s) => s.trigger },
      { header: 'size', cell: (s) => `${(s.sizeBytes / 1_000_000).toFixed(1)} MB`, align: 'right' },
      { header: 'created', cell: (s) => s.createdAt },
    ],
    `No snapshots yet. Take one with \`colony backups create --office ${typeof office === 'string' ? office : '<office>'}\`.`,
  );
  printMore(ctx, nextCursor);
  return 0;
};
