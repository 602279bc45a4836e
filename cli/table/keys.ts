// `colony keys …`: API keys, managed with the stored login (an API key cannot manage keys).
import type { CommandSpec, GroupSpec } from '../spec.ts';

export const keysGroup: GroupSpec = { path: ['keys'], summary: 'Create, list and revoke API keys' };

export const keysCommands: CommandSpec[] = [
  {
    path: ['keys', 'list'],
    summary: 'List your API keys (never the keys themselves)',
    args: [],
    flags: {},
    examples: ['colony keys list', 'colony keys list --json'],
    auth: 'login',
    load: () => import('../commands/keys/list.ts').then((m) => m.run),
  },
  {
    path: ['keys', 'create'],
    summary: 'Create an API key; it is printed once (stdout) and never shown again',
    args: [],
    flags: {
      name: { type: 'string', value: '<name>', required: true, description: 'A name to recognise it by' },
      scopes: {
        type: 'string',
        value: '<scope,…>',
        description: 'Scopes it carries, comma-separated (default: the server’s default scopes)',
      },
      offices: {
        type: 'string',
        value: '<office,…>',
        description: 'Offices it may act on, comma-separated (default: all of yours)',
      },
      'expires-in-days': {
        type: 'integer',
        value: '<days>',
        min: 1,
        description: 'Days until it stops working (default: never)',
      },
    },
    examples: [
      'KEY=$(colony keys create --name ci --scopes offices:read --expires-in-days 30)',
      'colony keys create --name laptop --json',
    ],
    auth: 'login',
    load: () => import('../commands/keys/create.ts').then((m) => m.run),
  },
  {
    path: ['keys', 'revoke'],
    summary: 'Revoke an API key (it fails at once)',
    args: [{ name: 'key_id', required: true, description: 'The key’s id (key_…), from `colony keys list`' }],
    flags: {},
    examples: ['colony keys revoke key_abcdefghijklmnopqrstuvwx'],
    auth: 'login',
    load: () => import('../commands/keys/revoke.ts').then((m) => m.run),
  },
];
