// The generated CRDs on a real API server: they install, validate, serve status and explain themselves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, GROUP, VERSION } from '../../controller/api/crds.ts';
import { installCrds, kubeConfig, kubectl, withNamespace } from '../support/kube.ts';

let ns: Awaited<ReturnType<typeof withNamespace>>;
const custom = () => kubeConfig().makeApiClient(CustomObjectsApi);

beforeAll(async () => {
  await installCrds();
  ns = await withNamespace('crds');
});
afterAll(() => ns.dispose());

const binding = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'AgentBinding',
  metadata: { name, namespace: ns.name },
  spec,
});

describe('CRDs generated from zod', () => {
  it('are the files committed under crds/', () => {
    const dir = new URL('../../crds/', import.meta.url).pathname;
    for (const plural of ['integrations', 'agentbindings']) {
      expect(readFileSync(join(dir, `${GROUP}_${plural}.yaml`), 'utf8')).toContain(
        `name: ${plural}.${GROUP}`,
      );
    }
  });

  it('accept a valid AgentBinding and refuse invalid ones with the field named', async () => {
    const good = { agentName: 'writer', integrationId: 'openai', secretName: 'openai-acme', enabled: true };
    await custom().createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: 'agentbindings',
      body: binding('good', good),
    });
    for (const [spec, field] of [
      [{ ...good, enabled: 'yes' }, 'spec.enabled'],
      [{ ...good, agentName: 'Writer_1' }, 'spec.agentName'],
      [{ agentName: 'w', integrationId: 'openai', enabled: true }, 'spec.secretName'],
    ] as const) {
      const err = await custom()
        .createNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: ns.name,
          plural: 'agentbindings',
          body: binding('bad', spec),
        })
        .then(
          () => undefined,
          (e: { code?: number; body?: string }) => e,
        );
      expect(err?.code).toBe(422);
      expect(String(err?.body)).toContain(field);
    }
  });

  it('serve status as a subresource, so spec writers cannot touch it', async () => {
    const name = 'with-status';
    await custom().createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: 'integrations',
      body: {
        apiVersion: API_VERSION,
        kind: 'Integration',
        metadata: { name, namespace: ns.name },
        spec: { integrationId: 'openai', officeId: 'acme', secretName: 'openai-acme' },
        status: {
          registration: {
            Name: 'x',
            ID: 'x',
            Status: 'active',
            SecretName: 'x',
            Capabilities: [],
            AgentEnvVars: [],
          },
        },
      },
    });
    const stored = (await custom().getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: 'integrations',
      name,
    })) as { status?: unknown };
    expect(stored.status).toBeUndefined();
  });

  it('print their columns and work with kubectl explain and short names', () => {
    const table = kubectl(['get', 'ab', '-n', ns.name]);
    expect(table).toMatch(/NAME\s+AGENT\s+INTEGRATION\s+ENABLED\s+READY\s+AGE/);
    expect(table).toMatch(/good\s+writer\s+openai\s+true/);
    const explained = kubectl(['explain', 'agentbindings.spec.agentName']);
    expect(explained).toContain('colony.ai/agent label');
    expect(kubectl(['explain', 'integrations.status.registration'])).toContain('AgentEnvVars');
  });
});
