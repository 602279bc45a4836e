// `colony backups restore <snapshot_id> [--parts …] [--wait]`: starts a restore job on the server and,
// with --wait, follows it; Ctrl-C stops following, the restore carries on.
import { clientFor } from '../../client-from-env.ts';
import { partLines } from '../../output.ts';
import type { SnapshotRestore } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';
import { startedOrFollowed } from './follow-job.ts';

const restoreLines = (r: SnapshotRestore) => [
  `${r.id} ${r.status}`,
  ...partLines(r.report),
  ...(r.error ? [`error: ${r.error}`] : []),
];

export const run: Handler = async (ctx) => {
  const id = ctx.args[0] as string;
  const { parts } = ctx.flags;
  const key = ctx.flags['idempotency-key'];
  const client = await clientFor(ctx);
  const started = await client.restoreSnapshot(id, {
    parts: typeof parts === 'string' ? parts.split(',').map((p) => p.trim()) : undefined,
    idempotencyKey: typeof key === 'string' ? key : undefined,
  });
  return startedOrFollowed(ctx, started, {
    kind: 'restore',
    read: () => client.restorePolled(id, started.id),
    lines: restoreLines,
    check: `colony backups show ${id}`,
  });
};
