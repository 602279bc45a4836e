// Every command, by group and name. Other groups (login, whoami, keys) add their files here.
import type { Command } from '../args.ts';
import { create as createSnapshot } from './backups/create.ts';
import { list as listSnapshots } from './backups/list.ts';
import { restore as restoreSnapshot } from './backups/restore.ts';
import { connect } from './integrations/connect.ts';
import { list } from './integrations/list.ts';
import { show } from './integrations/show.ts';
import { validate } from './integrations/validate.ts';

export const commands: Record<string, Record<string, Command>> = {
  integrations: { validate, list, show, connect },
  backups: { list: listSnapshots, create: createSnapshot, restore: restoreSnapshot },
};
