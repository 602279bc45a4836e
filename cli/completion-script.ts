// Pure: shell completion scripts for bash, zsh and fish, generated from the command table.
import type { CommandSpec, FlagSpec } from './spec.ts';
import { globalFlags } from './table/shared-flags.ts';
import { type CommandTable, childrenIn } from './table-lookup.ts';

export const shells = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof shells)[number];

const header = (shell: Shell) =>
  `# colony completion for ${shell}; generated from the command table (colony completion ${shell})`;
const allFlags = (spec: CommandSpec): [string, FlagSpec][] =>
  Object.entries({ ...spec.flags, ...globalFlags });
const pathOf = (p: readonly string[]) => p.join(' ');
const rootWords = (t: CommandTable) => [...childrenIn(t, []).map((c) => c.name), '--help', '--version'];

function bash(t: CommandTable): string {
  const { commands, groups } = t;
  const childrenOf = (path: readonly string[]) => childrenIn(t, path);
  const cases: string[] = [];
  for (const spec of commands) {
    const flags = allFlags(spec);
    const choices = flags.filter(([, f]) => f.choices);
    const p = pathOf(spec.path);
    cases.push(`    "${p}"|"${p} "*)`, '      case "$prev" in');
    for (const [name, f] of choices) cases.push(`        --${name}) words="${f.choices?.join(' ')}" ;;`);
    cases.push(`        *) words="${flags.map(([n]) => `--${n}`).join(' ')}" ;;`, '      esac ;;');
  }
  for (const g of groups)
    cases.push(
      `    "${pathOf(g.path)}") words="${childrenOf(g.path)
        .map((c) => c.name)
        .join(' ')}" ;;`,
    );
  return [
    header('bash'),
    '_colony() {',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" path="" words i',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    '    case "${COMP_WORDS[i]}" in -*) break ;; esac',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    '    path="${path:+$path }${COMP_WORDS[i]}"',
    '  done',
    '  case "$path" in',
    `    "") words="${rootWords(t).join(' ')}" ;;`,
    ...cases,
    '    *) words="--endpoint --json --help" ;;',
    '  esac',
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '}',
    'complete -F _colony colony',
  ].join('\n');
}

const zshItem = (word: string, description: string) =>
  `'${`${word.replace(/:/g, '\\:')}:${description}`.replace(/'/g, `'\\''`)}'`;

function zsh(t: CommandTable): string {
  const { commands, groups } = t;
  const childrenOf = (path: readonly string[]) => childrenIn(t, path);
  const cases: string[] = [];
  for (const spec of commands) {
    const p = pathOf(spec.path);
    const items = allFlags(spec).map(([n, f]) => zshItem(`--${n}`, f.description));
    cases.push(`    "${p}"|"${p} "*) items=(${items.join(' ')}) ;;`);
  }
  for (const g of groups)
    cases.push(
      `    "${pathOf(g.path)}") items=(${childrenOf(g.path)
        .map((c) => zshItem(c.name, c.summary))
        .join(' ')}) ;;`,
    );
  const root = [
    ...childrenOf([]).map((c) => zshItem(c.name, c.summary)),
    zshItem('--help', 'Show help'),
    zshItem('--version', 'Print the CLI and server versions'),
  ];
  return [
    '#compdef colony',
    header('zsh'),
    '_colony() {',
    '  local -a words_before items',
    '  local w',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    '  for w in ${words[2,CURRENT-1]}; do [[ $w == -* ]] && break; words_before+=("$w"); done',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    '  case "${(j: :)words_before}" in',
    `    "") items=(${root.join(' ')}) ;;`,
    ...cases,
    `    *) items=(${zshItem('--endpoint', 'The Colony API')} ${zshItem('--json', 'JSON output')} ${zshItem('--help', 'Show help')}) ;;`,
    '  esac',
    "  _describe 'colony' items",
    '}',
    'compdef _colony colony',
  ].join('\n');
}

const fishQuote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fishFlag(name: string, f: FlagSpec): string {
  const value = f.type === 'boolean' ? '' : f.choices ? ` -x -a ${fishQuote(f.choices.join(' '))}` : ' -r';
  const short = f.short ? ` -s ${f.short}` : '';
  return `-l ${name}${short}${value} -d ${fishQuote(f.description)}`;
}

function fish(t: CommandTable): string {
  const { commands, groups } = t;
  const childrenOf = (path: readonly string[]) => childrenIn(t, path);
  const lines = [
    header('fish'),
    'function __colony_path',
    '  set -l words (commandline -opc)',
    '  set -e words[1]',
    '  set -l path',
    '  for w in $words',
    "    string match -q -- '-*' $w; and break",
    '    set path $path $w',
    '  end',
    "  string join ' ' $path",
    'end',
    'complete -c colony -f',
  ];
  const at = (p: string) => fishQuote(`test "$(__colony_path)" = "${p}"`);
  const under = (p: string) => fishQuote(`string match -q -- "${p}*" "$(__colony_path)"`);
  for (const c of childrenOf([]))
    lines.push(`complete -c colony -n ${at('')} -a ${c.name} -d ${fishQuote(c.summary)}`);
  lines.push(
    `complete -c colony -n ${at('')} -l version -d ${fishQuote('Print the CLI and server versions')}`,
  );
  for (const g of groups)
    for (const c of childrenOf(g.path))
      lines.push(`complete -c colony -n ${at(pathOf(g.path))} -a ${c.name} -d ${fishQuote(c.summary)}`);
  for (const spec of commands)
    for (const [name, f] of allFlags(spec))
      lines.push(`complete -c colony -n ${under(pathOf(spec.path))} ${fishFlag(name, f)}`);
  return lines.join('\n');
}

export function completionScript(shell: Shell, table: CommandTable): string {
  return { bash, zsh, fish }[shell](table);
}
