// Pure: the names an agent's enabled integrations occupy, instance qualification and collisions;
// who owns a clashing env entry; and what the API server's refusals say.
import { describe, expect, it } from 'vitest';
import { envOwners, formClashes } from '../../../controller/reconcilers/field-owners.ts';
import { renderAgentEnvApply } from '../../../controller/render/agent-env.ts';
import { renderAgentLayers } from '../../../controller/render/agent-layers.ts';
import { renderOfficeService } from '../../../controller/render/office-service.ts';
import { RESTRICTED_CONTAINER } from '../../../controller/render/pod-security.ts';
import { apiFailure, isTransient } from '../../../controller/runtime/api-failure.ts';
import {
  agentSurfaces,
  bindingOrder,
  type EnabledInstance,
  instanceEnvName,
  instanceFilePath,
  surfaceConflicts,
} from '../../../integrations/registry/agent-surface.ts';
import { loadRegistry } from '../../../integrations/registry/load-registry.ts';

const registry = loadRegistry(new URL('../../../integrations', import.meta.url).pathname);
const manifest = (id: string) => {
  const m = registry.get(id);
  if (!m) throw new Error(`no ${id}`);
  return m;
};
const github = (label: string, order: string): EnabledInstance => ({
  manifest: manifest('github'),
  resourceName: `github-${label}`,
  instanceLabel: label,
  order,
});

describe('agent surfaces', () => {
  it('qualifies instance names: upper-cased, hyphens to underscores, files in a folder per instance', () => {
    expect(instanceEnvName('GITHUB_TOKEN', 'work-org')).toBe('GITHUB_TOKEN_WORK_ORG');
    expect(instanceFilePath('/home/agent/.config/gh/hosts.yml', 'oss')).toBe(
      '/home/agent/.config/gh/oss/hosts.yml',
    );
  });

  it('gives the earliest instance the plain names too, and never lets instances collide', () => {
    const enabled = [github('oss', '2'), github('work', '1')];
    const s = agentSurfaces(enabled);
    expect(s.get('github-work')).toEqual({
      env: { GITHUB_TOKEN: ['GITHUB_TOKEN', 'GITHUB_TOKEN_WORK'] },
      files: [['/home/agent/.config/gh/hosts.yml', '/home/agent/.config/gh/work/hosts.yml']],
    });
    expect(s.get('github-oss')).toEqual({
      env: { GITHUB_TOKEN: ['GITHUB_TOKEN_OSS'] },
      files: [['/home/agent/.config/gh/oss/hosts.yml']],
    });
    expect(surfaceConflicts(enabled)).toEqual([]);
  });

  it('keeps the plain names of a single-instance integration unchanged', () => {
    const s = agentSurfaces([{ manifest: manifest('openai'), resourceName: 'openai', order: '1' }]);
    expect(s.get('openai')?.env).toEqual({ OPENAI_API_KEY: ['OPENAI_API_KEY'] });
  });

  it('refuses the later of two integrations that claim one name, and lets a refused one push nobody out', () => {
    const openai = manifest('openai');
    const twin = { ...openai, id: 'twin' };
    const third = { ...openai, id: 'third' };
    const conflicts = surfaceConflicts([
      { manifest: twin, resourceName: 'twin', order: '2' },
      { manifest: openai, resourceName: 'openai', order: '1' },
      { manifest: third, resourceName: 'third', order: '3' },
    ]);
    expect(conflicts).toEqual([
      { kind: 'env', name: 'OPENAI_API_KEY', holder: 'openai', refused: 'twin' },
      { kind: 'env', name: 'OPENAI_API_KEY', holder: 'openai', refused: 'third' },
    ]);
  });

  it('finds a file path two integrations claim', () => {
    const gh = manifest('github');
    const copy = { ...gh, id: 'copy', multiInstance: false, agentEnvVars: [] };
    const conflicts = surfaceConflicts([
      github('work', '1'),
      { manifest: copy, resourceName: 'copy', order: '2' },
    ]);
    expect(conflicts).toEqual([
      { kind: 'file', name: '/home/agent/.config/gh/hosts.yml', holder: 'github-work', refused: 'copy' },
    ]);
  });
});

describe('bindingOrder', () => {
  it('orders by creation time, read as a string or a Date alike, then name; one not created yet last', () => {
    const at = '2026-11-25T10:00:00Z';
    expect(bindingOrder({ metadata: { creationTimestamp: at, name: 'a' } })).toBe(
      bindingOrder({ metadata: { creationTimestamp: new Date(at), name: 'a' } }),
    );
    const sorted = [
      { metadata: { name: 'new' } },
      { metadata: { creationTimestamp: '2026-11-25T10:00:01Z', name: 'a' } },
      { metadata: { creationTimestamp: at, name: 'b' } },
      { metadata: { creationTimestamp: at, name: 'a' } },
    ]
      .map((b) => ({ b, k: bindingOrder(b) }))
      .sort((x, y) => (x.k < y.k ? -1 : 1))
      .map(({ b }) => `${b.metadata.creationTimestamp ?? '-'} ${b.metadata.name}`);
    expect(sorted).toEqual([`${at} a`, `${at} b`, '2026-11-25T10:00:01Z a', '- new']);
  });
});

describe('field owners', () => {
  const container = {
    name: 'agent',
    env: [
      { name: 'A', value: 'owner' },
      { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'B' } } },
      { name: 'C', valueFrom: { configMapKeyRef: { name: 'cm', key: 'C' } } },
    ],
  };
  it('finds entries holding the other form from the one Colony renders', () => {
    const ref = (name: string) => ({ name, valueFrom: { secretKeyRef: { name: 's', key: name } } });
    expect(formClashes(container, [ref('A'), ref('B'), ref('D')])).toEqual(['A']);
    expect(
      formClashes(container, [
        { name: 'C', value: 'url' },
        { name: 'A', value: 'x' },
      ]),
    ).toEqual(['C']);
  });

  it('names the managers of an env entry, other than Colony', () => {
    const entry = (f: string) => ({
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': { 'k:{"name":"agent"}': { 'f:env': { 'k:{"name":"A"}': { [f]: {} } } } },
          },
        },
      },
    });
    const obj = {
      metadata: {
        managedFields: [
          { manager: 'colony-controller', operation: 'Apply', fieldsV1: entry('f:valueFrom') },
          { manager: 'kubectl-edit', operation: 'Update', fieldsV1: entry('f:value') },
          { manager: 'helm', operation: 'Update', fieldsV1: entry('f:name') },
        ],
      },
    };
    expect(envOwners(obj, 'agent', 'A')).toEqual(['kubectl-edit (Update)']);
    expect(envOwners(obj, 'agent', 'B')).toEqual([]);
  });
});

describe('apiFailure', () => {
  it('reads the Status the API server sent, a JSON string or an object, or names the code', () => {
    expect(apiFailure({ code: 422, body: { reason: 'Invalid', message: 'bad' } })).toEqual({
      code: 422,
      reason: 'Invalid',
      message: 'bad',
    });
    expect(apiFailure({ code: 422, body: JSON.stringify({ message: 'denied' }) })).toEqual({
      code: 422,
      reason: 'Invalid',
      message: 'denied',
    });
    expect(apiFailure({ code: 599, body: 'oops' })).toEqual({
      code: 599,
      reason: 'Http599',
      message: 'oops',
    });
    expect(apiFailure(new Error('ECONNRESET'))).toBeUndefined();
  });

  it('never repeats a value the API server quotes back', () => {
    const message =
      'Deployment.apps "a" is invalid: spec.template.spec.containers[0].env[0].value: Invalid value: "sk-\\"secret": bad; x: Invalid value: "other"';
    expect(apiFailure({ code: 422, body: { message } })?.message).toBe(
      'Deployment.apps "a" is invalid: spec.template.spec.containers[0].env[0].value: Invalid value: (redacted): bad; x: Invalid value: (redacted)',
    );
  });

  it('treats throttling, unavailability and network errors as worth retrying unchanged', () => {
    expect(isTransient(apiFailure({ code: 429 }))).toBe(true);
    expect(isTransient(apiFailure({ code: 503 }))).toBe(true);
    expect(isTransient(undefined)).toBe(true);
    expect(isTransient(apiFailure({ code: 422 }))).toBe(false);
    expect(isTransient(apiFailure({ code: 403 }))).toBe(false);
  });
});

describe('what Colony adds to pods', () => {
  it('applies an owner-held env entry by name alone, and outside the injected list', () => {
    const ref = {
      apiVersion: 'apps/v1' as const,
      kind: 'Deployment' as const,
      name: 'a',
      namespace: 'n',
      container: 'agent',
    };
    const body = renderAgentEnvApply(ref, [], undefined, ['GAMMA_TOKEN']);
    expect(body.spec.template.spec.containers).toEqual([{ name: 'agent', env: [{ name: 'GAMMA_TOKEN' }] }]);
    expect(body.metadata.annotations['colony.ai/injected-env']).toBe('');
  });

  it('gives the init container and the service pods restricted securityContexts by default', () => {
    const layers = renderAgentLayers(
      'a',
      [{ manifest: manifest('github'), resourceName: 'github-work' }],
      'colony-init:1',
    );
    expect(layers.initContainer?.securityContext).toEqual(RESTRICTED_CONTAINER);
    const svc = renderOfficeService({
      manifest: manifest('tailscale'),
      officeId: 'acme',
      namespace: 'office-acme',
      secretName: 'tailscale-acme',
    });
    const pod = svc.deployment.spec?.template.spec;
    expect(pod?.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod?.containers[0]?.securityContext).toEqual(RESTRICTED_CONTAINER);
    const custom = renderOfficeService({
      manifest: manifest('tailscale'),
      officeId: 'acme',
      namespace: 'office-acme',
      secretName: 'tailscale-acme',
      security: { servicePod: { runAsUser: 1000 }, serviceContainer: { privileged: false } },
    });
    expect(custom.deployment.spec?.template.spec?.securityContext).toEqual({ runAsUser: 1000 });
  });
});
