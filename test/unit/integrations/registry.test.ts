// The registry core: manifests validate strictly and errors name the file and the field.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadRegistry, ManifestError } from '../../../integrations/registry/load-registry.ts';
import { isReservedEnvKey } from '../../../integrations/registry/reserved-keys.ts';
import { k8sSecretName, SecretNameError } from '../../../integrations/registry/secret-name.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const base = {
  id: 'acme',
  name: 'Acme',
  description: 'Acme API',
  icon: 'acme',
  category: 'services',
  wizard: 'guide',
  requiredSecrets: [{ key: 'ACME_TOKEN', label: 'Token', type: 'password', required: true }],
  agentEnvVars: ['ACME_TOKEN'],
  version: '1.0.0',
};

function registryWith(
  manifest: Record<string, unknown>,
  folder = String(manifest.id ?? 'acme'),
  guide = true,
) {
  const dir = mkdtempSync(join(tmpdir(), 'colony-registry-'));
  dirs.push(dir);
  mkdirSync(join(dir, folder));
  writeFileSync(join(dir, folder, 'manifest.yaml'), stringify(manifest));
  if (guide) writeFileSync(join(dir, folder, 'guide.md'), '# Guide\n');
  return dir;
}

function failure(dir: string): ManifestError {
  try {
    loadRegistry(dir);
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error('expected the registry to refuse the manifest');
}

describe('loadRegistry', () => {
  it('loads the integrations shipped in this repository', () => {
    const registry = loadRegistry(new URL('../../../integrations', import.meta.url).pathname);
    const ids = registry.list().map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['openai', 'anthropic', 'github', 'slack', 'tailscale']));
    expect(registry.get('github')?.multiInstance).toBe(true);
    expect(registry.get('tailscale')?.colonyContainer?.persistentVolume?.size).toBe('1Gi');
  });

  it('fills defaults: helpLabel, aliases, verified, guideFile', () => {
    const m = loadRegistry(registryWith(base)).get('acme');
    expect(m?.requiredSecrets[0]?.helpLabel).toBe('Find it here');
    expect(m).toMatchObject({
      aliases: [],
      verified: false,
      guideFile: 'guide.md',
      officeLevel: false,
      multiInstance: false,
    });
  });

  it.each([
    [{ ...base, colour: 'red' }, '', 'Unrecognized key'],
    [{ ...base, category: 'games' }, 'category', ''],
    [{ ...base, wizard: 'magic' }, 'wizard', ''],
    [
      { ...base, requiredSecrets: [{ key: 'acme token', label: 'T', type: 'password', required: true }] },
      'requiredSecrets[0].key',
      'UPPER_SNAKE_CASE',
    ],
    [
      { ...base, requiredSecrets: [{ key: 'A', label: 'T', type: 'secret', required: true }] },
      'requiredSecrets[0].type',
      '',
    ],
    [
      { ...base, requiredSecrets: [{ key: 'A', label: 'T', type: 'text' }] },
      'requiredSecrets[0].required',
      '',
    ],
    [
      { ...base, requiredSecrets: [{ ...base.requiredSecrets[0], helpUrl: 'http://insecure.example' }] },
      'requiredSecrets[0].helpUrl',
      '',
    ],
    [{ ...base, agentEnvVars: ['OTHER'] }, 'agentEnvVars[0]', 'not a key of requiredSecrets'],
    [{ ...base, multiInstance: true }, 'requiredSecrets', 'INSTANCE_LABEL'],
    [
      {
        ...base,
        requiredSecrets: [{ key: 'PATH', label: 'P', type: 'text', required: true }],
        agentEnvVars: ['PATH'],
      },
      'agentEnvVars[0]',
      'reserved',
    ],
    [{ ...base, colonyContainer: { image: 'x', port: 70000 } }, 'colonyContainer.port', ''],
    [
      { ...base, colonyContainer: { image: 'x', port: 80, secretEnv: ['NOPE'] } },
      'colonyContainer.secretEnv[0]',
      'not a key',
    ],
    [
      {
        ...base,
        colonyContainer: { image: 'x', port: 80, persistentVolume: { size: 'big', mountPath: '/d' } },
      },
      'colonyContainer.persistentVolume.size',
      'quantity',
    ],
  ])('refuses %j naming the field', (manifest, field, message) => {
    const err = failure(registryWith(manifest));
    expect(err.file).toMatch(/acme\/manifest\.yaml$/);
    // Every problem is reported; the one this rule names must be among them.
    const problem = err.problems.find((p) => p.field === field);
    expect(problem, err.message).toBeDefined();
    expect(problem?.message).toContain(message);
  });

  it('accepts a multiInstance manifest with a required text INSTANCE_LABEL field', () => {
    const manifest = {
      ...base,
      multiInstance: true,
      requiredSecrets: [
        { key: 'INSTANCE_LABEL', label: 'Name', type: 'text', required: true },
        ...base.requiredSecrets,
      ],
    };
    expect(loadRegistry(registryWith(manifest)).get('acme')?.multiInstance).toBe(true);
  });

  it('refuses a manifest whose id differs from its folder, or whose guide is missing', () => {
    expect(failure(registryWith(base, 'other')).field).toBe('id');
    expect(failure(registryWith(base, 'acme', false)).field).toBe('guideFile');
  });

  it('refuses YAML that does not parse, naming the file', () => {
    const dir = registryWith(base);
    writeFileSync(join(dir, 'acme', 'manifest.yaml'), 'id: [unclosed');
    expect(failure(dir).message).toMatch(/manifest\.yaml: not valid YAML/);
  });
});

describe('k8sSecretName', () => {
  it('is <id>-<colonyId>, or <id>-<instanceLabel>-<colonyId> with an instance', () => {
    expect(k8sSecretName('openai', 'acme')).toBe('openai-acme');
    expect(k8sSecretName('github', 'acme', 'work')).toBe('github-work-acme');
  });

  it('refuses labels Kubernetes would refuse', () => {
    expect(() => k8sSecretName('github', 'acme', 'Work Account')).toThrow(SecretNameError);
    expect(() => k8sSecretName('github', 'ACME')).toThrow(SecretNameError);
  });
});

describe('isReservedEnvKey', () => {
  it.each([
    ['PATH', true],
    ['COLONY_OFFICE_ID', true],
    ['COLONY_ANYTHING', true],
    ['KUBERNETES_SERVICE_HOST', true],
    ['LD_PRELOAD', true],
    ['OPENAI_API_KEY', false],
    ['PATHFINDER', false],
  ])('%s reserved: %s', (name, reserved) => {
    expect(isReservedEnvKey(name)).toBe(reserved);
  });
});
