// Pure: lookups over a command table, given to them, so a handler that needs the table (completion)
// gets it from its context instead of importing the table that imports it.
import type { CommandSpec, GroupSpec } from './spec.ts';

export interface CommandTable {
  commands: readonly CommandSpec[];
  groups: readonly GroupSpec[];
}

const key = (path: readonly string[]) => path.join(' ');

/** The words that may follow `path`: its subgroups and commands, in table order. */
export function childrenIn(
  table: CommandTable,
  path: readonly string[],
): { name: string; summary: string }[] {
  const depth = path.length;
  const under = (p: readonly string[]) => p.length === depth + 1 && key(p.slice(0, depth)) === key(path);
  return [
    ...table.groups
      .filter((g) => under(g.path))
      .map((g) => ({ name: g.path[depth] as string, summary: g.summary })),
    ...table.commands
      .filter((c) => under(c.path))
      .map((c) => ({ name: c.path[depth] as string, summary: c.summary })),
  ];
}
