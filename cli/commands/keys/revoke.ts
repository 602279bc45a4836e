// `colony keys revoke <id>`: the key fails at once.
import type { Command } from '../../args.ts';
import { flagValue } from '../../args.ts';
import { loginClientFrom } from '../../client-from-env.ts';

export const revoke: Command = {
  summary: 'Revoke an API key (it fails at once)',
  usage: 'colony keys revoke <key_id> [--endpoint <url>]',
  async run(args, io) {
    const id = args.positionals[0];
    if (!id || args.positionals.length > 1) {
      io.err(`usage: ${revoke.usage}`);
      return 64;
    }
    const endpoint = flagValue(args.flags.endpoint);
    await loginClientFrom(io.env, endpoint ? { endpoint } : {}).revokeKey(id);
    io.out(`Revoked ${id}`);
    return 0;
  },
};
