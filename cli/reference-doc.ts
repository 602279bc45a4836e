// Pure: docs/cli.md, the CLI reference, rendered from the same command table as the help text.
import { flagLabel, usageLine } from './help-text.ts';
import type { CommandSpec, FlagSpec } from './spec.ts';
import { globalFlags } from './table/shared-flags.ts';
import { type CommandTable, childrenIn } from './table-lookup.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function flagTable(flags: Readonly<Record<string, FlagSpec>>): string[] {
  const rows = Object.entries(flags).map(([name, f]) => {
    const notes = [f.required ? 'required' : '', f.choices ? `one of: ${f.choices.join(', ')}` : '']
      .filter(Boolean)
      .join('; ');
    return `| \`${cell(flagLabel(name, f))}\` | ${cell(f.description)}${notes ? ` (${cell(notes)})` : ''} |`;
  });
  return ['| flag | description |', '|---|---|', ...rows];
}

function commandSection(spec: CommandSpec): string[] {
  const lines = [`### colony ${spec.path.join(' ')}`, '', spec.summary, '', '```', usageLine(spec), '```'];
  if (spec.args.length)
    lines.push(
      '',
      ...spec.args.map((a) => `- \`<${a.name}>\`${a.required ? '' : ' (optional)'}: ${a.description}`),
    );
  if (Object.keys(spec.flags).length) lines.push('', ...flagTable(spec.flags));
  lines.push('', 'Examples:', '', '```sh', ...spec.examples, '```', '');
  return lines;
}

export function renderReference(table: CommandTable): string {
  const top = childrenIn(table, []);
  const lines = [
    '# colony CLI reference',
    '',
    '<!-- Generated from the command table (cli/command-table.ts) by `node scripts/generate-cli-reference.ts`;',
    'test/unit/cli/cli-reference.test.ts fails when it is stale. Do not edit by hand. -->',
    '',
    'The same table gives `colony <command> --help`, the completion scripts (`colony completion',
    'bash|zsh|fish`) and this page.',
    '',
    '## Exit codes',
    '',
    '| code | meaning |',
    '|---|---|',
    '| 0 | success |',
    '| 1 | failure (the server refused, a job failed, the endpoint did not answer) |',
    '| 2 | usage: an unknown command or flag, a missing or invalid value |',
    '| 3 | not signed in, or not allowed (401/403): run `colony login` |',
    '| 4 | not found (404) |',
    '| 130 | interrupted with Ctrl-C while waiting; the job carries on at the server |',
    '',
    '## Global flags',
    '',
    'Every command takes these; `colony --version` prints the CLI and server versions.',
    '',
    ...flagTable(globalFlags),
    '',
    '## Commands',
    '',
    ...top.map((c) => `- \`${c.name}\`: ${c.summary}`),
    '',
  ];
  const under = (path: readonly string[]) =>
    table.commands.filter((c) => c.path.slice(0, -1).join(' ') === path.join(' ')).flatMap(commandSection);
  lines.push('## Commands without a group', '', ...under([]));
  for (const group of table.groups)
    lines.push(`## colony ${group.path.join(' ')}`, '', group.summary, '', ...under(group.path));
  return `${lines.join('\n').trimEnd()}\n`;
}
