// `colony integrations connect <id> --office <officeID> [--instance <name>]`: prints the browser
// link that connects an OAuth integration (open it signed in as a member of the office).
import type { Command } from '../../args.ts';
import { clientFrom } from '../../client-from-env.ts';

export const connect: Command = {
  summary: 'Print the link that connects an OAuth integration to an office',
  usage: 'colony integrations connect <id> --office <officeID> [--instance <name>]',
  async run(args, io) {
    const id = args.positionals[0];
    const office = args.flags.office;
    const instance = args.flags.instance;
    if (!id || typeof office !== 'string' || instance === true) {
      io.err(`usage: ${connect.usage}`);
      return 64;
    }
    const { connectUrl } = await clientFrom(io.env).connectUrl(office, id, instance);
    io.out(connectUrl);
    return 0;
  },
};
