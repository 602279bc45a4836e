// Every command: by group and name, and the few that stand alone (`colony login`).
import type { Command } from '../args.ts';
import { login } from './auth/login.ts';
import { logout } from './auth/logout.ts';
import { whoami } from './auth/whoami.ts';
import { create as createSnapshot } from './backups/create.ts';
import { list as listSnapshots } from './backups/list.ts';
import { restore as restoreSnapshot } from './backups/restore.ts';
import { connect } from './integrations/connect.ts';
import { list } from './integrations/list.ts';
import { show } from './integrations/show.ts';
import { validate } from './integrations/validate.ts';
import { create as createKey } from './keys/create.ts';
import { list as listKeys } from './keys/list.ts';
import { revoke as revokeKey } from './keys/revoke.ts';

export const commands: Record<string, Record<string, Command>> = {
  integrations: { validate, list, show, connect },
  backups: { list: listSnapshots, create: createSnapshot, restore: restoreSnapshot },
  keys: { list: listKeys, create: createKey, revoke: revokeKey },
};

/** Commands without a group. */
export const topLevel: Record<string, Command> = { login, whoami, logout };
