// The command table: every command and group of `colony`, the one source of parsing, help,
// completion and docs/cli.md. Handlers are imported only when their command runs.
import type { CommandSpec, GroupSpec } from './spec.ts';
import { authCommands } from './table/auth.ts';
import { backupsCommands, backupsGroups } from './table/backups.ts';
import { integrationsCommands, integrationsGroups } from './table/integrations.ts';
import { keysCommands, keysGroup } from './table/keys.ts';
import { officesCommands, officesGroups } from './table/offices.ts';
import { usageCommands } from './table/usage.ts';
import { type CommandTable, childrenIn } from './table-lookup.ts';

export const commands: readonly CommandSpec[] = [
  ...authCommands,
  ...keysCommands,
  ...integrationsCommands,
  ...officesCommands,
  ...backupsCommands,
  ...usageCommands,
];

export const groups: readonly GroupSpec[] = [
  keysGroup,
  ...integrationsGroups,
  ...officesGroups,
  ...backupsGroups,
];

const key = (path: readonly string[]) => path.join(' ');
const commandsByPath = new Map(commands.map((c) => [key(c.path), c]));
const groupsByPath = new Map(groups.map((g) => [key(g.path), g]));

export const findCommandSpec = (path: readonly string[]) => commandsByPath.get(key(path));
export const findGroup = (path: readonly string[]) => groupsByPath.get(key(path));

export const commandTable: CommandTable = { commands, groups };

/** The words that may follow `path`: its subgroups and commands, in table order. */
export const childrenOf = (path: readonly string[]) => childrenIn(commandTable, path);
