// `colony offices …`: the office-manager API: offices, their members and their task queues.
import type { CommandSpec, GroupSpec } from '../spec.ts';
import { cursorFlag, officeFlag } from './shared-flags.ts';

export const officesGroups: GroupSpec[] = [
  { path: ['offices'], summary: 'Create, list and delete offices; manage members and tasks' },
  { path: ['offices', 'members'], summary: 'Who may operate an office' },
  { path: ['offices', 'tasks'], summary: 'An office’s task queue' },
];

const officeArg = { name: 'office', required: true, description: 'The office id (lowercase, digits, -)' };
const taskArg = { name: 'task_id', required: true, description: 'The task (task_…)' };
const taskStatuses = ['open', 'in_progress', 'done', 'canceled'];

export const officesCommands: CommandSpec[] = [
  {
    path: ['offices', 'list'],
    summary: 'List the offices your credential may act on, with your role',
    args: [],
    flags: {},
    examples: ['colony offices list', 'colony offices list --json'],
    auth: 'any',
    load: () => import('../commands/offices/list.ts').then((m) => m.run),
  },
  {
    path: ['offices', 'create'],
    summary: 'Create an office (its namespace); creating one that exists changes nothing',
    args: [officeArg],
    flags: {},
    examples: ['colony offices create acme'],
    auth: 'any',
    load: () => import('../commands/offices/create.ts').then((m) => m.run),
  },
  {
    path: ['offices', 'delete'],
    summary: 'Delete an office: Colony lets go of its namespace, which keeps everything else',
    args: [officeArg],
    flags: {},
    examples: ['colony offices delete acme'],
    auth: 'any',
    load: () => import('../commands/offices/delete.ts').then((m) => m.run),
  },
  {
    path: ['offices', 'members', 'list'],
    summary: 'List the accounts that may operate an office, with their roles',
    args: [],
    flags: { office: officeFlag },
    examples: ['colony offices members list --office acme'],
    auth: 'any',
    load: () => import('../commands/offices/members.ts').then((m) => m.list),
  },
  {
    path: ['offices', 'members', 'add'],
    summary: 'Add an account (it must have signed up) to an office, or change its role',
    args: [],
    flags: {
      office: officeFlag,
      email: { type: 'string', value: '<email>', required: true, description: 'The account’s email' },
      role: {
        type: 'string',
        value: '<role>',
        choices: ['owner', 'operator'],
        description: 'owner may manage members; operator may operate (default: operator)',
      },
    },
    examples: ['colony offices members add --office acme --email ada@example.com --role owner'],
    auth: 'any',
    load: () => import('../commands/offices/members.ts').then((m) => m.add),
  },
  {
    path: ['offices', 'members', 'remove'],
    summary: 'Remove an account from an office',
    args: [{ name: 'account_id', required: true, description: 'The account (acct_…)' }],
    flags: { office: officeFlag },
    examples: ['colony offices members remove acct_0123 --office acme'],
    auth: 'any',
    load: () => import('../commands/offices/members.ts').then((m) => m.remove),
  },
  {
    path: ['offices', 'tasks', 'list'],
    summary: 'List an office’s tasks, newest first',
    args: [],
    flags: {
      office: officeFlag,
      status: { type: 'string', value: '<status>', choices: taskStatuses, description: 'Only this status' },
      cursor: cursorFlag,
    },
    examples: ['colony offices tasks list --office acme --status open'],
    auth: 'any',
    load: () => import('../commands/offices/tasks.ts').then((m) => m.list),
  },
  {
    path: ['offices', 'tasks', 'create'],
    summary: 'Add a task to an office’s queue',
    args: [],
    flags: {
      office: officeFlag,
      title: { type: 'string', value: '<title>', required: true, description: 'A short title' },
      prompt: { type: 'string', value: '<text>', required: true, description: 'What the agents should do' },
    },
    examples: ['colony offices tasks create --office acme --title "Weekly report" --prompt "Summarise…"'],
    auth: 'any',
    load: () => import('../commands/offices/tasks.ts').then((m) => m.create),
  },
  {
    path: ['offices', 'tasks', 'show'],
    summary: 'Show one task',
    args: [taskArg],
    flags: { office: officeFlag },
    examples: ['colony offices tasks show task_0123456789abcdef0123 --office acme'],
    auth: 'any',
    load: () => import('../commands/offices/tasks.ts').then((m) => m.show),
  },
  {
    path: ['offices', 'tasks', 'update'],
    summary: 'Move a task to another status',
    args: [taskArg],
    flags: {
      office: officeFlag,
      status: {
        type: 'string',
        value: '<status>',
        required: true,
        choices: taskStatuses,
        description: 'The new status',
      },
    },
    examples: ['colony offices tasks update task_0123456789abcdef0123 --office acme --status done'],
    auth: 'any',
    load: () => import('../commands/offices/tasks.ts').then((m) => m.update),
  },
];
