// `colony backups restore <snapshotId> [--parts resources,database,volumes] [--idempotency-key <key>] [--wait]`.
import type { Command } from '../../args.ts';
import { clientFrom } from '../../client-from-env.ts';
import { partLines, waitUntilSettled } from './wait.ts';

export const restore: Command = {
  summary: 'Restore an office from a snapshot (--wait to follow it until it finishes)',
  usage:
    'colony backups restore <snapshotId> [--parts resources,database,volumes] [--idempotency-key <key>] [--wait]',
  async run(args, io) {
    const id = args.positionals[0];
    const { parts, wait } = args.flags;
    const key = args.flags['idempotency-key'];
    if (!id || parts === true || key === true) {
      io.err(`usage: ${restore.usage}`);
      return 64;
    }
    const client = clientFrom(io.env);
    const started = await client.restoreSnapshot(id, {
      ...(parts ? { parts: parts.split(',').map((p) => p.trim()) } : {}),
      ...(key ? { idempotencyKey: key } : {}),
    });
    io.out(`${started.id} ${started.status}`);
    if (!wait) return 0;
    const done = await waitUntilSettled(() => client.getRestore(id, started.id), { intervalMs: 500 });
    io.out(`${done.id} ${done.status}`);
    for (const line of partLines(done.report)) io.out(line);
    return done.status === 'completed' ? 0 : 1;
  },
};
