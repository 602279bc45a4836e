// `colony integrations …`: the registry, and the integrations configured in an office.
import type { CommandSpec, GroupSpec } from '../spec.ts';
import { instanceFlag, officeFlag } from './shared-flags.ts';

export const integrationsGroups: GroupSpec[] = [
  { path: ['integrations'], summary: 'Browse the registry and configure integrations in an office' },
  { path: ['integrations', 'secret'], summary: 'Store or delete an integration’s credentials in an office' },
];

const agentFlag = {
  type: 'string',
  value: '<agent>',
  required: true,
  description: 'The agent to enable it for',
} as const;

export const integrationsCommands: CommandSpec[] = [
  {
    path: ['integrations', 'list'],
    summary: 'List the integrations of the registry, optionally searched by name or alias',
    args: [],
    flags: {
      q: { type: 'string', value: '<term>', description: 'Search by name, alias or capability' },
      category: {
        type: 'string',
        value: '<category>',
        choices: ['llm', 'communication', 'services'],
        description: 'Only this category',
      },
    },
    examples: ['colony integrations list', 'colony integrations list --q mail --json'],
    auth: 'none',
    load: () => import('../commands/integrations/list.ts').then((m) => m.run),
  },
  {
    path: ['integrations', 'show'],
    summary: 'Show one integration: its credential fields, env vars, layers and dependencies',
    args: [{ name: 'id', required: true, description: 'The integration id, e.g. slack' }],
    flags: {},
    examples: ['colony integrations show slack'],
    auth: 'none',
    load: () => import('../commands/integrations/show.ts').then((m) => m.run),
  },
  {
    path: ['integrations', 'validate'],
    summary: 'Check a folder of integration manifests; exits 1 naming each file and field at fault',
    args: [{ name: 'dir', required: false, description: 'The folder (default: ./integrations)' }],
    flags: {},
    examples: ['colony integrations validate', 'colony integrations validate ./my-integrations/acme'],
    auth: 'none',
    load: () => import('../commands/integrations/validate.ts').then((m) => m.run),
  },
  {
    path: ['integrations', 'status'],
    summary: 'The integrations configured in an office, their status and agents',
    args: [],
    flags: { office: officeFlag },
    examples: ['colony integrations status --office acme'],
    auth: 'any',
    load: () => import('../commands/integrations/status.ts').then((m) => m.run),
  },
  {
    path: ['integrations', 'connect'],
    summary: 'Print the link that connects an OAuth integration to an office',
    args: [{ name: 'id', required: true, description: 'The integration id' }],
    flags: { office: officeFlag, instance: instanceFlag },
    examples: ['colony integrations connect google-mail --office acme'],
    auth: 'any',
    load: () => import('../commands/integrations/connect.ts').then((m) => m.run),
  },
  {
    path: ['integrations', 'enable'],
    summary: 'Enable a configured integration for one agent',
    args: [{ name: 'id', required: true, description: 'The integration id' }],
    flags: {
      office: officeFlag,
      agent: agentFlag,
      instance: instanceFlag,
      wait: { type: 'boolean', description: 'Wait until the integration is active for the agent' },
    },
    examples: ['colony integrations enable slack --office acme --agent support --wait'],
    auth: 'any',
    load: () => import('../commands/integrations/toggle.ts').then((m) => m.enable),
  },
  {
    path: ['integrations', 'disable'],
    summary: 'Disable an integration for one agent (its credentials stay in the office)',
    args: [{ name: 'id', required: true, description: 'The integration id' }],
    flags: {
      office: officeFlag,
      agent: { ...agentFlag, description: 'The agent to disable it for' },
      instance: instanceFlag,
    },
    examples: ['colony integrations disable slack --office acme --agent support'],
    auth: 'any',
    load: () => import('../commands/integrations/toggle.ts').then((m) => m.disable),
  },
  {
    path: ['integrations', 'secret', 'set'],
    summary: 'Store an integration’s credentials from an env file (values are never printed)',
    args: [{ name: 'id', required: true, description: 'The integration id' }],
    flags: {
      office: officeFlag,
      'from-env-file': {
        type: 'string',
        value: '<file>',
        required: true,
        description: 'A file of KEY=value lines, one per credential field',
      },
      'secret-name': {
        type: 'string',
        value: '<name>',
        description: 'The Secret to store them in (default: the integration’s own)',
      },
    },
    examples: ['colony integrations secret set slack --office acme --from-env-file slack.env'],
    auth: 'any',
    load: () => import('../commands/integrations/secret-set.ts').then((m) => m.run),
  },
  {
    path: ['integrations', 'secret', 'delete'],
    summary: 'Delete an integration’s credentials (and its configuration) from an office',
    args: [{ name: 'id', required: true, description: 'The integration id' }],
    flags: { office: officeFlag, instance: instanceFlag },
    examples: ['colony integrations secret delete slack --office acme'],
    auth: 'any',
    load: () => import('../commands/integrations/secret-delete.ts').then((m) => m.run),
  },
];
