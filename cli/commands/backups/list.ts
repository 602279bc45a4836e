// `colony backups list [--office <officeID>] [--status <status>] [--limit <n>]`: snapshots, newest first.
import type { Command } from '../../args.ts';
import { clientFrom } from '../../client-from-env.ts';

const flag = (v: string | true | undefined) => (typeof v === 'string' ? v : undefined);

export const list: Command = {
  summary: 'List office snapshots, newest first',
  usage: 'colony backups list [--office <officeID>] [--status <status>] [--limit <1-100>]',
  async run(args, io) {
    const limit = flag(args.flags.limit);
    const { data } = await clientFrom(io.env).listSnapshots({
      office: flag(args.flags.office),
      status: flag(args.flags.status),
      ...(limit ? { limit: Number(limit) } : {}),
    });
    for (const s of data) {
      const size = `${(s.sizeBytes / 1_000_000).toFixed(1)} MB`;
      io.out(
        `${s.id}  ${s.office.padEnd(20)} ${s.status.padEnd(10)} ${s.trigger.padEnd(9)} ${size.padStart(10)}  ${s.createdAt}`,
      );
    }
    return 0;
  },
};
