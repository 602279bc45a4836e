// Dispatches `colony <group> <command>` (or `colony <command>` for login, whoami, logout) to its
// command file; usage on anything unknown.
import type { Command, CommandIo, ParsedArgs } from './args.ts';
import { parseArgs } from './args.ts';
import { commands, topLevel } from './commands/index.ts';

function usage(io: CommandIo): void {
  io.err('usage: colony <command> | colony <group> <command> [arguments]\n');
  for (const [name, c] of Object.entries(topLevel)) io.err(`  colony ${name.padEnd(21)} ${c.summary}`);
  for (const [group, list] of Object.entries(commands)) {
    for (const [name, c] of Object.entries(list)) io.err(`  colony ${group} ${name.padEnd(10)} ${c.summary}`);
  }
}

const own = <T>(table: Record<string, T>, key: string | undefined): T | undefined =>
  key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;

/** The command named by the arguments; a top-level command takes what follows it as positionals. */
export function findCommand(args: ParsedArgs): { command: Command | undefined; args: ParsedArgs } {
  const single = own(topLevel, args.group);
  if (single) {
    const positionals = args.command === undefined ? args.positionals : [args.command, ...args.positionals];
    return { command: single, args: { ...args, command: undefined, positionals } };
  }
  const group = own(commands, args.group);
  return { command: group ? own(group, args.command) : undefined, args };
}

export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
  const { command, args } = findCommand(parseArgs(argv));
  if (!command || args.flags.help) {
    if (command && args.flags.help) {
      io.err(`usage: ${command.usage}`);
      return 0;
    }
    usage(io);
    return args.flags.help ? 0 : 64;
  }
  try {
    return await command.run(args, io);
  } catch (err) {
    // ColonyApiError (problem+json), AuthError, CredentialStoreError: their messages are written
    // for people and never carry a token.
    io.err(`colony: ${(err as Error).message}`);
    return 1;
  }
}
