// Pure: the help of `colony`, a group and a command, rendered from the command table.
import { childrenOf, commands, findGroup } from './command-table.ts';
import type { CommandSpec, FlagSpec } from './spec.ts';
import { globalFlags } from './table/shared-flags.ts';

const indent = (rows: [string, string][]): string[] => {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd());
};

export const flagLabel = (name: string, f: FlagSpec): string =>
  `${f.short ? `-${f.short}, ` : ''}--${name}${f.value ? ` ${f.value}` : ''}`;

function flagRows(flags: Readonly<Record<string, FlagSpec>>): [string, string][] {
  return Object.entries(flags).map(([name, f]) => {
    const notes = [f.required ? 'required' : '', f.choices ? `one of: ${f.choices.join(', ')}` : '']
      .filter(Boolean)
      .join('; ');
    return [flagLabel(name, f), `${f.description}${notes ? ` (${notes})` : ''}`];
  });
}

/** `colony backups create --office <office> [flags]` */
export function usageLine(spec: CommandSpec): string {
  const args = spec.args.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`));
  const required = Object.entries(spec.flags)
    .filter(([, f]) => f.required)
    .map(([name, f]) => flagLabel(name, f));
  return ['colony', ...spec.path, ...args, ...required, '[flags]'].join(' ');
}

const exitCodes =
  'Exit codes: 0 ok, 1 failure, 2 usage error, 3 not signed in or not allowed (run `colony login`), 4 not found.';

export function commandHelp(spec: CommandSpec): string[] {
  const lines = [spec.summary, '', 'Usage', `  ${usageLine(spec)}`];
  if (spec.args.length)
    lines.push('', 'Arguments', ...indent(spec.args.map((a) => [`<${a.name}>`, a.description])));
  if (Object.keys(spec.flags).length) lines.push('', 'Flags', ...indent(flagRows(spec.flags)));
  lines.push('', 'Global flags', ...indent(flagRows(globalFlags)));
  lines.push('', 'Examples', ...spec.examples.map((e) => `  $ ${e}`));
  return lines;
}

/** A few examples for a group: one from each of its first four subcommands or subgroups. */
export function groupExamples(all: readonly CommandSpec[], path: readonly string[]): string[] {
  const under = (p: readonly string[]) => all.filter((c) => p.every((word, i) => c.path[i] === word));
  return childrenOf(path)
    .flatMap((child) => under([...path, child.name])[0]?.examples.slice(0, 1) ?? [])
    .slice(0, 4);
}

export function groupHelp(path: readonly string[]): string[] {
  const children = childrenOf(path);
  const title = path.length
    ? (findGroup(path)?.summary ?? '')
    : 'colony: run and operate Colony from the shell';
  const name = ['colony', ...path].join(' ');
  return [
    title,
    '',
    'Usage',
    `  ${name} <command> [flags]`,
    '',
    'Commands',
    ...indent(children.map((c) => [c.name, c.summary])),
    '',
    'Global flags',
    ...indent(flagRows(path.length ? globalFlags : { ...globalFlags, version: versionFlag })),
    '',
    'Examples',
    ...groupExamples(commands, path).map((e) => `  $ ${e}`),
    '',
    `Run \`${name} <command> --help\` for a command's flags and examples.`,
    ...(path.length ? [] : [exitCodes]),
  ];
}

const versionFlag: FlagSpec = { type: 'boolean', description: 'Print the CLI and server versions' };
