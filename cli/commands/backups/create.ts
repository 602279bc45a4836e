// `colony backups create --office <office> [--wait]`: starts a snapshot job on the server and, with
// --wait, follows it; Ctrl-C stops following, the job carries on.
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import { follow } from '../../progress.ts';
import type { Handler } from '../../spec.ts';
import { snapshotLines } from './show.ts';

const running = new Set(['pending', 'running']);

export const run: Handler = async (ctx) => {
  const { office, description } = ctx.flags;
  const key = ctx.flags['idempotency-key'];
  const client = await clientFor(ctx);
  const started = await client.createSnapshot(String(office), {
    description: typeof description === 'string' ? description : undefined,
    idempotencyKey: typeof key === 'string' ? key : undefined,
  });
  if (!ctx.flags.wait) {
    printRecord(ctx, started, () => [`${started.id} ${started.status}`]);
    return 0;
  }
  if (!ctx.json) ctx.io.out(`${started.id} ${started.status}`);
  const done = await follow({
    io: ctx.io,
    read: () => client.snapshotPolled(started.id),
    settled: (s) => !running.has(s.status),
    describe: (s) => `snapshot ${s.id} ${s.status}`,
    interrupted: {
      message: `stopped waiting; snapshot ${started.id} carries on at the server`,
      hint: `check on it with \`colony backups show ${started.id}\``,
    },
    intervalMs: 500,
  });
  printRecord(ctx, done, () => snapshotLines(done));
  return done.status === 'completed' ? 0 : 1;
};
