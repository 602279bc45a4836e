// `colony backups create --office <officeID> [--description <text>] [--idempotency-key <key>] [--wait]`.
import type { Command } from '../../args.ts';
import { clientFrom } from '../../client-from-env.ts';
import { partLines, waitUntilSettled } from './wait.ts';

export const create: Command = {
  summary: 'Take a snapshot of an office (--wait to follow it until it finishes)',
  usage:
    'colony backups create --office <officeID> [--description <text>] [--idempotency-key <key>] [--wait]',
  async run(args, io) {
    const { office, description, wait } = args.flags;
    const key = args.flags['idempotency-key'];
    if (typeof office !== 'string' || description === true || key === true) {
      io.err(`usage: ${create.usage}`);
      return 64;
    }
    const client = clientFrom(io.env);
    const started = await client.createSnapshot(office, {
      ...(description ? { description } : {}),
      ...(key ? { idempotencyKey: key } : {}),
    });
    io.out(`${started.id} ${started.status}`);
    if (!wait) return 0;
    const done = await waitUntilSettled(() => client.getSnapshot(started.id), { intervalMs: 500 });
    io.out(`${done.id} ${done.status}`);
    for (const line of partLines(done.parts)) io.out(line);
    return done.status === 'completed' ? 0 : 1;
  },
};
