// Dispatches `colony <group> <command>` to its command file; usage on anything unknown.
import { type CommandIo, parseArgs } from './args.ts';
import { commands } from './commands/index.ts';
import { ColonyApiError } from './sdk/client.ts';

function usage(io: CommandIo): void {
  io.err('usage: colony <group> <command> [arguments]\n');
  for (const [group, list] of Object.entries(commands)) {
    for (const [name, c] of Object.entries(list)) io.err(`  colony ${group} ${name.padEnd(10)} ${c.summary}`);
  }
}

export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
  const args = parseArgs(argv);
  const command = args.group && args.command ? commands[args.group]?.[args.command] : undefined;
  if (!command || args.flags.help) {
    usage(io);
    return args.flags.help ? 0 : 64;
  }
  try {
    return await command.run(args, io);
  } catch (err) {
    if (err instanceof ColonyApiError) {
      io.err(`colony: ${err.message}`);
      return 1;
    }
    io.err(`colony: ${(err as Error).message}`);
    return 1;
  }
}
