// Parses a command line against the command table with node:util parseArgs: the command's words
// first, then its arguments and flags. Every mistake is a UsageError naming the offender.
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { didYouMean } from './closest-match.ts';
import { childrenOf, findCommandSpec, findGroup } from './command-table.ts';
import type { CommandSpec, FlagSpec, FlagValues } from './spec.ts';
import { globalFlags } from './table/shared-flags.ts';
import { UsageError } from './usage-error.ts';

export type ParsedLine =
  | { kind: 'command'; spec: CommandSpec; args: string[]; flags: FlagValues; help: boolean }
  /** Help for a group, or for `colony` itself when the path is empty. */
  | { kind: 'group'; path: string[] };

const isHelp = (a: string) => a === '-h' || a === '--help';

export function parseCommandLine(argv: readonly string[]): ParsedLine {
  if (argv[0] === '--version') return parseCommandLine(['version', ...argv.slice(1)]);
  const path: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word.startsWith('-')) break;
    const next = [...path, word];
    const spec = findCommandSpec(next);
    if (spec) return parseCommandArgs(spec, argv.slice(i + 1));
    if (!findGroup(next)) {
      const names = childrenOf(path).map((c) => c.name);
      const where = path.length ? ` for "colony ${path.join(' ')}"` : '';
      throw new UsageError(`unknown command "${word}"${where}${didYouMean(word, names)}`, path);
    }
    path.push(word);
  }
  const rest = argv.slice(i);
  if (rest.length === 0 || isHelp(rest[0] as string)) return { kind: 'group', path };
  if (path.length === 0) throw flagBeforeCommand(rest[0] as string);
  const names = childrenOf(path).map((c) => c.name);
  throw new UsageError(`"colony ${path.join(' ')}" needs a command: ${names.join(', ')}`, path);
}

function flagBeforeCommand(flag: string): UsageError {
  const name = flag.replace(/^-+/, '').split('=')[0] as string;
  if (Object.hasOwn(globalFlags, name))
    return new UsageError(`${flag} goes after the command: colony <command> ${flag}`);
  const known = [...Object.keys(globalFlags).map((f) => `--${f}`), '--version'];
  return new UsageError(`unknown flag ${flag} before the command${didYouMean(flag, known)}`);
}

/** Every flag a command takes: its own and the global ones. */
export const flagsOf = (spec: CommandSpec): Record<string, FlagSpec> => ({ ...spec.flags, ...globalFlags });

function optionsOf(flags: Record<string, FlagSpec>): ParseArgsOptionsConfig {
  return Object.fromEntries(
    Object.entries(flags).map(([name, f]) => [
      name,
      { type: f.type === 'boolean' ? 'boolean' : 'string', ...(f.short ? { short: f.short } : {}) },
    ]),
  );
}

/** `--days -5` would read as a flag to parseArgs: joined as `--days=-5` so it reaches validation. */
function joinNegativeValues(args: readonly string[], flags: Record<string, FlagSpec>): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const flag = arg.startsWith('--') ? flags[arg.slice(2)] : undefined;
    const next = args[i + 1];
    if (flag && flag.type !== 'boolean' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

function parseError(err: unknown, spec: CommandSpec, flags: Record<string, FlagSpec>): UsageError {
  const { code, message } = err as { code?: string; message: string };
  const where = `"colony ${spec.path.join(' ')}"`;
  const offender = /'(-[^' ]+)/.exec(message)?.[1] ?? '';
  const name = offender.replace(/^-+/, '');
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const names = Object.keys(flags).map((f) => `--${f}`);
    return new UsageError(`unknown flag ${offender} for ${where}${didYouMean(offender, names)}`, spec.path);
  }
  const flag = flags[name];
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag)
    return new UsageError(
      flag.type === 'boolean'
        ? `--${name} takes no value`
        : `--${name} needs a value ${flag.value ?? ''}`.trim(),
      spec.path,
    );
  return new UsageError(message, spec.path);
}

export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): ParsedLine {
  const end = argv.indexOf('--');
  if ((end === -1 ? argv : argv.slice(0, end)).some(isHelp))
    return { kind: 'command', spec, args: [], flags: {}, help: true };
  const flags = flagsOf(spec);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, flags),
      options: optionsOf(flags),
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw parseError(err, spec, flags);
  }
  const values: FlagValues = {};
  for (const [name, flag] of Object.entries(flags)) {
    const value = validFlag(name, flag, parsed.values[name] as string | boolean | undefined, spec.path);
    if (value !== undefined) values[name] = value;
  }
  return { kind: 'command', spec, args: validArgs(spec, parsed.positionals), flags: values, help: false };
}

function validArgs(spec: CommandSpec, positionals: string[]): string[] {
  const extra = positionals[spec.args.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, spec.path);
  const missing = spec.args.find((a, i) => a.required && !positionals[i]);
  if (missing) throw new UsageError(`missing <${missing.name}>: ${missing.description}`, spec.path);
  return positionals;
}

/** A flag's value checked against its spec; the message names the real problem. */
export function validFlag(
  name: string,
  flag: FlagSpec,
  raw: string | boolean | undefined,
  helpPath: readonly string[] = [],
): string | boolean | number | undefined {
  const fail = (why: string) => new UsageError(`--${name} ${why}`, helpPath);
  if (raw === undefined) {
    if (flag.required) throw fail('is required');
    return undefined;
  }
  if (typeof raw === 'boolean') return raw;
  if (flag.required && !raw.trim()) throw fail('must not be empty');
  if (flag.choices && !flag.choices.includes(raw))
    throw fail(`must be one of ${flag.choices.join(', ')} (got "${raw}")${didYouMean(raw, flag.choices)}`);
  return flag.type === 'integer' ? validInteger(raw, flag, fail) : raw;
}

function validInteger(raw: string, flag: FlagSpec, fail: (why: string) => UsageError): number {
  if (!/^[+-]?\d+$/.test(raw.trim())) throw fail(`must be a whole number (got "${raw}")`);
  const n = Number(raw);
  if (flag.min !== undefined && n < flag.min)
    throw fail(flag.min === 1 ? `must be positive (got ${n})` : `must be at least ${flag.min} (got ${n})`);
  if (flag.max !== undefined && n > flag.max) throw fail(`must be at most ${flag.max} (got ${n})`);
  return n;
}
