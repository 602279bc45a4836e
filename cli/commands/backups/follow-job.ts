// What backups create and restore share: print the job just started, or with --wait follow it until
// it leaves pending/running and print how it ended; exit 1 unless it completed.
import { printRecord } from '../../output.ts';
import { follow } from '../../progress.ts';
import type { CommandContext } from '../../spec.ts';

interface Job {
  id: string;
  status: string;
}

const running = new Set(['pending', 'running']);

export async function startedOrFollowed<T extends Job>(
  ctx: CommandContext,
  started: T,
  job: {
    kind: string;
    read: () => Promise<{ value: T; retryAfterSeconds: number | undefined }>;
    lines: (done: T) => string[];
    /** The command that checks on the job after Ctrl-C. */
    check: string;
  },
): Promise<number> {
  if (!ctx.flags.wait) {
    printRecord(ctx, started, () => [`${started.id} ${started.status}`]);
    return 0;
  }
  if (!ctx.json) ctx.io.out(`${started.id} ${started.status}`);
  const done = await follow({
    io: ctx.io,
    read: job.read,
    settled: (j) => !running.has(j.status),
    describe: (j) => `${job.kind} ${j.id} ${j.status}`,
    interrupted: {
      message: `stopped waiting; ${job.kind} ${started.id} carries on at the server`,
      hint: `check on it with \`${job.check}\``,
    },
    intervalMs: 500,
  });
  printRecord(ctx, done, () => job.lines(done));
  return done.status === 'completed' ? 0 : 1;
}
