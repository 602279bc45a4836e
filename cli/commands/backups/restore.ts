// `colony backups restore <snapshot_id> [--parts …] [--wait]`: starts a restore job on the server and,
// with --wait, follows it; Ctrl-C stops following, the restore carries on.
import { clientFor } from '../../client-from-env.ts';
import { partLines, printRecord } from '../../output.ts';
import { follow } from '../../progress.ts';
import type { SnapshotRestore } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

const running = new Set(['pending', 'running']);
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
  if (!ctx.flags.wait) {
    printRecord(ctx, started, () => [`${started.id} ${started.status}`]);
    return 0;
  }
  if (!ctx.json) ctx.io.out(`${started.id} ${started.status}`);
  const done = await follow({
    io: ctx.io,
    read: () => client.restorePolled(id, started.id),
    settled: (r) => !running.has(r.status),
    describe: (r) => `restore ${r.id} ${r.status}`,
    interrupted: {
      message: `stopped waiting; restore ${started.id} carries on at the server`,
      hint: `see its report with \`colony backups show ${id}\` once it is done`,
    },
    intervalMs: 500,
  });
  printRecord(ctx, done, () => restoreLines(done));
  return done.status === 'completed' ? 0 : 1;
};
