// Parses `colony <group> <command> [positionals] [--flag value | --flag]` with no dependencies.

export interface ParsedArgs {
  group: string | undefined;
  command: string | undefined;
  positionals: string[];
  flags: Record<string, string | true>;
}

/** Flags that never take a value, so `--json key_…` leaves `key_…` a positional. */
const booleanFlags = new Set(['help', 'json', 'wait']);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    const next = argv[i + 1];
    if (inline !== undefined) flags[name] = inline;
    else if (next !== undefined && !next.startsWith('--') && !booleanFlags.has(name)) {
      flags[name] = next;
      i++;
    } else flags[name] = true;
  }
  const [group, command, ...rest] = positionals;
  return { group, command, positionals: rest, flags };
}

export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A flag's value when it was given one (`--name x`), else undefined (absent, or bare `--name`). */
export const flagValue = (v: string | true | undefined): string | undefined =>
  typeof v === 'string' ? v : undefined;

/** One command: wires its arguments to the SDK or a helper and answers the exit code. */
export type Command = {
  summary: string;
  usage: string;
  run(args: ParsedArgs, io: CommandIo): Promise<number>;
};
