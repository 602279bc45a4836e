// The commands without a group: sign in and out, who am I, versions and shell completion.
import type { CommandSpec } from '../spec.ts';

export const authCommands: CommandSpec[] = [
  {
    path: ['login'],
    summary: 'Sign in through the browser (device code); the session is stored for the endpoint',
    args: [],
    flags: {
      scope: {
        type: 'string',
        value: '"<scopes>"',
        description:
          'Space-separated scopes to ask for (default: offices:read offices:write backups:read backups:write keys:write offline_access)',
      },
    },
    examples: ['colony login', 'colony login --endpoint https://colony.example.com'],
    auth: 'none',
    load: () => import('../commands/auth/login.ts').then((m) => m.run),
  },
  {
    path: ['logout'],
    summary: 'Revoke the stored login at the server and remove it from this machine',
    args: [],
    flags: {},
    examples: ['colony logout', 'colony logout --endpoint https://colony.example.com'],
    auth: 'none',
    load: () => import('../commands/auth/logout.ts').then((m) => m.run),
  },
  {
    path: ['whoami'],
    summary: 'Show the account and credential the CLI uses (COLONY_API_KEY wins over the login)',
    args: [],
    flags: {},
    examples: ['colony whoami', 'colony whoami --json'],
    auth: 'any',
    load: () => import('../commands/auth/whoami.ts').then((m) => m.run),
  },
  {
    path: ['version'],
    summary: 'Print the CLI version and the version of the server it points at',
    args: [],
    flags: {},
    examples: ['colony version', 'colony --version', 'colony version --json'],
    auth: 'none',
    load: () => import('../commands/version.ts').then((m) => m.run),
  },
  {
    path: ['completion'],
    summary: 'Print a shell completion script (bash, zsh or fish)',
    args: [{ name: 'shell', required: true, description: 'bash, zsh or fish' }],
    flags: {},
    examples: [
      'source <(colony completion bash)',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh parameter expansion, not a template
      'colony completion zsh > "${fpath[1]}/_colony"',
      'colony completion fish > ~/.config/fish/completions/colony.fish',
    ],
    auth: 'none',
    load: () => import('../commands/completion.ts').then((m) => m.run),
  },
];
