// The manifest v2 layers: each validated strictly, each refusal naming its path and rule.
import { describe, expect, it } from 'vitest';
import { integrationManifestSchema } from '../../../integrations/registry/manifest-schema.ts';
import {
  renderTemplate,
  TemplateError,
  templateVariables,
} from '../../../integrations/registry/templates.ts';

/** `${NAME}`, spelled so that no linter mistakes it for a template literal. */
const envRef = (name: string) => ['$', '{', name, '}'].join('');

const base = {
  id: 'acme',
  name: 'Acme',
  description: 'Acme API',
  icon: 'acme',
  category: 'services',
  wizard: 'guide',
  requiredSecrets: [
    { key: 'ACME_TOKEN', label: 'Token', type: 'password', required: true },
    { key: 'ACME_REGION', label: 'Region', type: 'text', required: false },
  ],
  agentEnvVars: ['ACME_TOKEN'],
  version: '2.0.0',
};

const issues = (manifest: Record<string, unknown>) => {
  const r = integrationManifestSchema.safeParse(manifest);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

describe('integrationManifestSchema layers', () => {
  it('accepts a manifest using all nine layers', () => {
    const manifest = {
      ...base,
      tools: {
        mcpServers: [
          { name: 'acme', command: 'npx', args: ['-y', 'acme-mcp'], env: { TOKEN: envRef('ACME_TOKEN') } },
        ],
        gatewayPlugins: ['@acme/gateway-plugin'],
      },
      cliInstalls: {
        apt: ['jq'],
        npm: ['acme-cli@2.1.0'],
        pip: ['acme==1.0'],
        binaries: [{ name: 'acmectl', url: 'https://example.com/acmectl', sha256: 'a'.repeat(64) }],
      },
      credentialFiles: [
        { path: '/home/agent/.acme/config.json', template: '{"token": {{json ACME_TOKEN}} }' },
      ],
      sharedDrive: { subdirectories: ['inbox', 'reports/daily'] },
      database: { migrations: ['001.sql'] },
      taskTemplates: [
        { name: 'intro', title: 'Say hello', prompt: 'Introduce yourself' },
        {
          name: 'digest',
          title: 'Digest',
          prompt: 'Summarise',
          schedule: '0 9 * * 1-5',
          timezone: 'Europe/Paris',
        },
      ],
      members: {
        requiredRoles: ['support'],
        maxAgents: 2,
        agentConfig: [{ key: 'ACME_QUEUE', label: 'Queue' }],
      },
      colonyContainer: { image: 'acme/proxy:1', port: 8080, urlEnv: 'ACME_PROXY_URL' },
      credentialCheck: {
        url: 'https://api.acme.test/me',
        headers: { Authorization: 'Bearer {{ACME_TOKEN}}' },
      },
    };
    expect(issues(manifest)).toEqual([]);
    const parsed = integrationManifestSchema.parse(manifest);
    expect(parsed.credentialFiles?.[0]?.mode).toBe('0600');
    expect(parsed.database?.access).toBe('readwrite');
    expect(parsed.credentialCheck?.expectStatus).toEqual([200]);
  });

  it.each([
    [
      { tools: { mcpServers: [{ name: 'a', command: 'x', env: { T: envRef('OTHER') } }] } },
      'tools.mcpServers.0.env.T',
      'not a variable this integration injects',
    ],
    [
      {
        tools: {
          mcpServers: [
            { name: 'a', command: 'x' },
            { name: 'a', command: 'y' },
          ],
        },
      },
      'tools.mcpServers.1.name',
      'duplicate',
    ],
    [{ tools: { plugins: [] } }, 'tools', 'Unrecognized key'],
    [{ cliInstalls: { apt: ['jq; rm -rf /'] } }, 'cliInstalls.apt.0', 'Debian package'],
    [{ cliInstalls: { npm: ['$(curl evil)'] } }, 'cliInstalls.npm.0', 'npm package'],
    [{ cliInstalls: { pip: ['requests --index-url x'] } }, 'cliInstalls.pip.0', 'pip requirement'],
    [{ cliInstalls: { brew: ['jq'] } }, 'cliInstalls', 'Unrecognized key'],
    [
      { cliInstalls: { binaries: [{ name: 'x', url: 'http://example.com/x', sha256: 'a'.repeat(64) }] } },
      'cliInstalls.binaries.0.url',
      '',
    ],
    [
      { cliInstalls: { binaries: [{ name: 'x', url: 'https://example.com/x', sha256: 'nope' }] } },
      'cliInstalls.binaries.0.sha256',
      'SHA-256',
    ],
    [
      { credentialFiles: [{ path: 'relative/file', template: 'x' }] },
      'credentialFiles.0.path',
      'absolute path',
    ],
    [
      { credentialFiles: [{ path: '/home/agent/../../etc/passwd', template: 'x' }] },
      'credentialFiles.0.path',
      '..',
    ],
    [{ credentialFiles: [{ path: '/proc/self/x', template: 'x' }] }, 'credentialFiles.0.path', '/proc'],
    [
      { credentialFiles: [{ path: '/a/b', template: '{{NOT_A_KEY}}' }] },
      'credentialFiles.0.template',
      'NOT_A_KEY is not a credential key',
    ],
    [
      { credentialFiles: [{ path: '/a/b', template: '{{#each ACME_TOKEN}}x{{/each}}' }] },
      'credentialFiles.0.template',
      'unknown helper',
    ],
    [
      { credentialFiles: [{ path: '/a/b', template: '{{> partial}}' }] },
      'credentialFiles.0.template',
      'partials',
    ],
    [
      { credentialFiles: [{ path: '/a/b', template: '{{ACME_TOKEN' }] },
      'credentialFiles.0.template',
      'not a valid template',
    ],
    [
      {
        credentialFiles: [
          { path: '/a/b', template: 'x' },
          { path: '/a/b', template: 'y' },
        ],
      },
      'credentialFiles.1.path',
      'duplicate path',
    ],
    [{ credentialFiles: [{ path: '/a/b', template: 'x', mode: '777' }] }, 'credentialFiles.0.mode', 'octal'],
    [{ sharedDrive: { subdirectories: ['../escape'] } }, 'sharedDrive.subdirectories.0', ''],
    [{ database: { migrations: [] } }, 'database.migrations', ''],
    [{ database: { migrations: ['drop.sh'] } }, 'database.migrations.0', '.sql'],
    [{ database: { migrations: ['a.sql'], urlEnv: 'ACME_TOKEN' } }, 'database.urlEnv', 'already injected'],
    [
      { taskTemplates: [{ name: 'd', title: 'D', prompt: 'p', schedule: '61 * * * *' }] },
      'taskTemplates.0.schedule',
      'not a valid cron schedule',
    ],
    [
      { taskTemplates: [{ name: 'd', title: 'D', prompt: 'p', schedule: '* * *' }] },
      'taskTemplates.0.schedule',
      'five fields',
    ],
    [
      {
        taskTemplates: [
          { name: 'd', title: 'D', prompt: 'p', schedule: '0 9 * * *', timezone: 'Mars/Olympus' },
        ],
      },
      'taskTemplates.0.timezone',
      'IANA',
    ],
    [
      {
        taskTemplates: [
          { name: 'd', title: 'D', prompt: 'p' },
          { name: 'd', title: 'E', prompt: 'q' },
        ],
      },
      'taskTemplates.1',
      'duplicate task template',
    ],
    [{ members: { maxAgents: 0 } }, 'members.maxAgents', ''],
    [{ members: { requiredRoles: ['Not A Role'] } }, 'members.requiredRoles.0', ''],
    [{ members: { agentConfig: [{ key: 'PATH', label: 'p' }] } }, 'members.agentConfig.0.key', 'reserved'],
    [
      { members: { agentConfig: [{ key: 'Q', label: 'q', pattern: '([' }] } },
      'members.agentConfig.0.pattern',
      'regular expression',
    ],
    [
      { colonyContainer: { image: 'x', port: 1, urlEnv: 'COLONY_URL' } },
      'colonyContainer.urlEnv',
      'reserved',
    ],
    [{ credentialCheck: { url: 'https://x/{{NOPE}}' } }, 'credentialCheck.url', 'NOPE'],
    [{ credentialCheck: { url: 'https://x', expectStatus: [] } }, 'credentialCheck.expectStatus', ''],
    [{ wizard: 'oauth' }, 'oauth', 'requires an oauth section'],
    [{ dependsOn: ['acme'] }, 'dependsOn.0', 'itself'],
    [{ dependsOn: ['llm'], conflicts: ['llm'] }, 'dependsOn.0', 'both a dependency and a conflict'],
    [
      { requiredSecrets: [{ key: 'HOME', label: 'h', type: 'text', required: true }], agentEnvVars: [] },
      'requiredSecrets.0.key',
      'reserved',
    ],
  ])('refuses %j at its path', (extra, path, message) => {
    const found = issues({ ...base, ...extra }).find((i) => i.path === path);
    expect(found, JSON.stringify(issues({ ...base, ...extra }))).toBeDefined();
    expect(found?.message).toContain(message);
  });
});

describe('strict templates', () => {
  it('lists the variables a template reads, helpers aside', () => {
    expect(templateVariables('{{A}} {{json B}} {{#if C}}{{D}}{{/if}}')).toEqual(['A', 'B', 'C', 'D']);
  });

  it('renders with json escaping and no HTML escaping', () => {
    expect(renderTemplate('{"t": {{json T}}, "raw": "{{R}}"}', { T: 'a"b', R: '<&>' })).toBe(
      '{"t": "a\\"b", "raw": "<&>"}',
    );
  });

  it('refuses a missing variable instead of rendering it empty', () => {
    expect(() => renderTemplate('token={{TOKEN}} region={{REGION}}', { TOKEN: 'x' })).toThrow(
      new TemplateError('missing variable REGION'),
    );
  });
});
