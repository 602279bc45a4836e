// Pure renderers: integration Secret, agent env apply body, per-office service objects.
import { describe, expect, it } from 'vitest';
import { renderIntegrationSecret } from '../../../cluster/integration-secret.ts';
import {
  credentialsChecksum,
  type Injection,
  renderAgentEnvApply,
  renderEnv,
} from '../../../controller/render/agent-env.ts';
import {
  officeServiceUrl,
  renderOfficeService,
  serviceImage,
} from '../../../controller/render/office-service.ts';
import { loadRegistry } from '../../../integrations/registry/load-registry.ts';

const registry = loadRegistry(new URL('../../../integrations', import.meta.url).pathname);
const manifest = (id: string) => {
  const m = registry.get(id);
  if (!m) throw new Error(`no ${id}`);
  return m;
};

const inj = (over: Partial<Injection> = {}): Injection => ({
  integrationId: 'openai',
  secretName: 'openai-acme',
  secretVersion: '10',
  envVars: ['OPENAI_API_KEY'],
  ...over,
});

describe('renderIntegrationSecret', () => {
  it('keeps only the manifest keys, drops INSTANCE_LABEL and empty values, and labels the Secret', () => {
    const s = renderIntegrationSecret({
      manifest: manifest('github'),
      officeId: 'acme',
      namespace: 'office-acme',
      secretName: 'github-work-acme',
      instanceLabel: 'work',
      data: { INSTANCE_LABEL: 'work', GITHUB_TOKEN: 'ghp_x', EXTRA: 'nope' },
    });
    expect(s.stringData).toEqual({ GITHUB_TOKEN: 'ghp_x' });
    expect(s.metadata?.labels).toMatchObject({
      'colony.ai/office': 'acme',
      'colony.ai/integration': 'github',
      'colony.ai/instance': 'work',
    });
  });
});

describe('renderEnv', () => {
  it('renders one secretKeyRef per variable, sorted, first integration winning a name clash', () => {
    const env = renderEnv([
      inj({
        integrationId: 'slack',
        secretName: 'slack-acme',
        envVars: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'],
      }),
      inj(),
      inj({ integrationId: 'zz', secretName: 'zz-acme', envVars: ['OPENAI_API_KEY'] }),
    ]);
    expect(env.map((e) => e.name)).toEqual(['OPENAI_API_KEY', 'SLACK_APP_TOKEN', 'SLACK_BOT_TOKEN']);
    expect(env[0]).toEqual({
      name: 'OPENAI_API_KEY',
      valueFrom: { secretKeyRef: { name: 'openai-acme', key: 'OPENAI_API_KEY' } },
    });
  });

  it('never renders a reserved key, whatever the injection says', () => {
    const env = renderEnv([
      inj({ envVars: ['PATH', 'OPENAI_API_KEY'], values: { COLONY_API_URL: 'x', PROXY_URL: 'http://p' } }),
    ]);
    expect(env.map((e) => e.name)).toEqual(['OPENAI_API_KEY', 'PROXY_URL']);
  });
});

describe('credentialsChecksum', () => {
  it('changes when a secret version changes and not when the order does', () => {
    const a = inj();
    const b = inj({ integrationId: 'slack', secretName: 'slack-acme', envVars: ['SLACK_BOT_TOKEN'] });
    expect(credentialsChecksum([a, b])).toBe(credentialsChecksum([b, a]));
    expect(credentialsChecksum([a, b])).not.toBe(credentialsChecksum([{ ...a, secretVersion: '11' }, b]));
  });
});

describe('renderAgentEnvApply', () => {
  const ref = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    name: 'writer',
    namespace: 'office-acme',
    container: 'agent',
  } as const;

  it('owns only the container env and the checksum annotation', () => {
    const body = renderAgentEnvApply(ref, [inj()]);
    expect(body.spec.template.spec.containers).toEqual([
      { name: 'agent', env: [expect.objectContaining({ name: 'OPENAI_API_KEY' })] },
    ]);
    expect(Object.keys(body.spec.template.metadata.annotations)).toEqual(['colony.ai/credentials-checksum']);
  });

  it('releases everything when nothing is injected', () => {
    const body = renderAgentEnvApply(ref, []);
    expect(body.spec.template.spec.containers).toEqual([{ name: 'agent' }]);
    expect(body.spec.template.metadata.annotations).toEqual({});
    expect(body.spec.template.metadata.labels).toEqual({});
  });

  it("labels the pod template with the agent's name, with or without colony-init", () => {
    const named = { ...ref, agentName: 'writer' };
    const injected = renderAgentEnvApply(named, [inj()]);
    expect(injected.spec.template.metadata.labels).toEqual({ 'colony.ai/agent': 'writer' });
    expect(injected.spec.template.spec).not.toHaveProperty('initContainers');
    // Nothing injected: every other field is released, the label stays so the pods are still metered.
    const bare = renderAgentEnvApply(named, []);
    expect(bare.spec.template.metadata).toEqual({ annotations: {}, labels: { 'colony.ai/agent': 'writer' } });
    expect(bare.metadata.annotations).toEqual({});
    expect(bare.spec.template.spec).toEqual({ containers: [{ name: 'agent' }] });
  });
});

describe('renderOfficeService', () => {
  const args = {
    manifest: manifest('tailscale'),
    officeId: 'acme',
    namespace: 'office-acme',
    secretName: 'tailscale-acme',
  };

  it('is one replica with the Recreate strategy, credentials by secretKeyRef, and a PVC', () => {
    const { deployment, service, pvc } = renderOfficeService(args);
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.spec?.strategy?.type).toBe('Recreate');
    const c = deployment.spec?.template.spec?.containers[0];
    expect(c?.image).toBe('tailscale/tailscale:stable');
    expect(c?.env?.find((e) => e.name === 'TS_AUTHKEY')?.valueFrom?.secretKeyRef).toEqual({
      name: 'tailscale-acme',
      key: 'TS_AUTHKEY',
    });
    expect(c?.env?.find((e) => e.name === 'TS_USERSPACE')?.value).toBe('true');
    expect(c?.volumeMounts?.[0]?.mountPath).toBe('/var/lib/tailscale');
    expect(service.spec?.ports?.[0]?.port).toBe(1055);
    expect(service.spec?.selector).toEqual(deployment.spec?.selector.matchLabels);
    expect(pvc?.spec?.resources?.requests?.storage).toBe('1Gi');
    expect(officeServiceUrl(args)).toBe('http://colony-tailscale.office-acme.svc:1055');
  });

  it.each([
    ['no overrides', undefined, 'tailscale/tailscale:stable'],
    ['an empty map', {}, 'tailscale/tailscale:stable'],
    [
      'a mirror of its image',
      { 'tailscale/tailscale:stable': 'mirror.example/ts:1.80' },
      'mirror.example/ts:1.80',
    ],
    [
      'a mirror of another image only',
      { 'tailscale/tailscale:latest': 'mirror.example/ts:1' },
      'tailscale/tailscale:stable',
    ],
    [
      'a fully qualified key (exact matches only)',
      { 'docker.io/tailscale/tailscale:stable': 'm/ts' },
      'tailscale/tailscale:stable',
    ],
  ])('runs the image the overrides give (%s)', (_case, imageOverrides, image) => {
    const { deployment } = renderOfficeService({ ...args, imageOverrides });
    expect(deployment.spec?.template.spec?.containers[0]?.image).toBe(image);
  });

  it('rolls the service when its override changes (the spec hash covers the image)', () => {
    const hash = (imageOverrides: Record<string, string>) =>
      renderOfficeService({ ...args, imageOverrides }).deployment.metadata?.annotations?.[
        'colony.ai/spec-hash'
      ];
    expect(hash({})).not.toBe(hash({ 'tailscale/tailscale:stable': 'mirror.example/ts:1' }));
    expect(hash({})).toBe(hash({ 'other/image:1': 'mirror.example/other:1' }));
  });

  it('refuses a manifest without the layer', () => {
    expect(() => renderOfficeService({ ...args, manifest: manifest('openai') })).toThrow(
      /no colonyContainer/,
    );
  });
});

describe('serviceImage', () => {
  it.each([
    ['tailscale/tailscale:stable', {}, 'tailscale/tailscale:stable'],
    ['tailscale/tailscale:stable', { 'tailscale/tailscale:stable': 'm/ts:1' }, 'm/ts:1'],
    // Keys are data, never the object's own machinery.
    ['constructor', {}, 'constructor'],
    ['toString', { other: 'x' }, 'toString'],
  ])('%s with %j runs %s', (image, overrides, expected) => {
    expect(serviceImage(image, overrides)).toBe(expected);
  });
});
