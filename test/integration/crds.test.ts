// The generated CRDs on a real API server: they install, validate, serve status and explain themselves.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_VERSION, buildCrd, GROUP, kinds, VERSION } from '../../cluster/crds/crds.ts';
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

/**
 * A private copy of each CRD (own group, kind and names, no short names or categories), so this file
 * can test its schema on the shared cluster while other runs install theirs under colony.ai.
 */
describe('the CRDs as the API server serves them (a private copy)', () => {
  const tag = `t${randomBytes(3).toString('hex')}`;
  const group = `${tag}.test.colony.ai`;
  const privateName = (kind: string) => `${tag.toUpperCase()}${kind}`;
  const plural = (k: (typeof kinds)[number]) => `${tag}${k.plural}`;
  let space: Awaited<ReturnType<typeof withNamespace>>;

  beforeAll(async () => {
    for (const k of kinds) {
      const crd = buildCrd(k);
      const names = { kind: privateName(k.kind), plural: plural(k), singular: `${tag}${k.singular}` };
      const body = {
        ...crd,
        metadata: { ...crd.metadata, name: `${names.plural}.${group}` },
        spec: { ...crd.spec, group, names: { ...names, listKind: `${names.kind}List` } },
      };
      kubectl(['create', '-f', '-'], JSON.stringify(body));
    }
    kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      ...kinds.map((k) => `crd/${plural(k)}.${group}`),
    ]);
    space = await withNamespace('crds-private');
  });
  afterAll(async () => {
    await space?.dispose();
    for (const k of kinds) kubectl(['delete', 'crd', `${plural(k)}.${group}`, '--ignore-not-found']);
  });

  const api = (k: (typeof kinds)[number]) => ({
    group,
    version: VERSION,
    namespace: space.name,
    plural: plural(k),
  });
  const [integrationKind, bindingKind] = kinds as [(typeof kinds)[number], (typeof kinds)[number]];
  const create = (k: (typeof kinds)[number], name: string, spec: Record<string, unknown>) =>
    custom().createNamespacedCustomObject({
      ...api(k),
      body: { apiVersion: `${group}/${VERSION}`, kind: privateName(k.kind), metadata: { name }, spec },
    });
  const patch = (k: (typeof kinds)[number], name: string, body: unknown) =>
    custom()
      .patchNamespacedCustomObject(
        { ...api(k), name, body },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )
      .then(
        () => ({ code: 200, body: '' }),
        (e: { code?: number; body?: string }) => ({ code: e.code, body: String(e.body) }),
      );

  /** Every property under spec and status in the API server's published OpenAPI v3, without a description. */
  async function undescribed(kind: string): Promise<string[]> {
    const doc = await vi.waitFor(
      () => {
        const raw = JSON.parse(kubectl(['get', '--raw', `/openapi/v3/apis/${group}/${VERSION}`])) as {
          components: {
            schemas: Record<string, OpenApiNode & { 'x-kubernetes-group-version-kind'?: { kind: string }[] }>;
          };
        };
        const found = Object.values(raw.components.schemas).find((s) =>
          s['x-kubernetes-group-version-kind']?.some((g) => g.kind === kind),
        );
        if (!found) throw new Error(`${kind} not published yet`);
        return found;
      },
      { timeout: 20_000, interval: 200 },
    );
    const missing: string[] = [];
    const walk = (node: OpenApiNode | undefined, path: string) => {
      if (!node) return;
      for (const [name, child] of Object.entries(node.properties ?? {})) {
        if (!child.description) missing.push(`${path}.${name}`);
        walk(child, `${path}.${name}`);
      }
      walk(node.items, `${path}[]`);
      if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${path}.*`);
    };
    for (const top of ['spec', 'status']) {
      const node = doc.properties?.[top];
      if (!node?.description) missing.push(top);
      walk(node, top);
    }
    return missing;
  }

  it.each(['Integration', 'AgentBinding'])('describe spec, status and every field of %s', async (kind) => {
    expect(await undescribed(privateName(kind))).toEqual([]);
  });

  it('explain spec, status and conditions in kubectl explain', async () => {
    const described = (field: string) => {
      const out = kubectl(['explain', `${tag}integrations.${field}`, '--api-version', `${group}/${VERSION}`]);
      return /DESCRIPTION:\n\s+(.+)/.exec(out)?.[1];
    };
    await vi.waitFor(() => expect(described('spec')).toBeDefined(), { timeout: 20_000, interval: 200 });
    for (const field of ['spec', 'status', 'status.conditions', 'status.conditions.reason']) {
      expect(described(field), field).not.toBe('<empty>');
    }
    expect(described('status.conditions')).toMatch(/Available/);
  });

  it('refuse changes to what identifies an Integration, with the rule’s message, and allow the rest', async () => {
    const spec = { integrationId: 'openai', officeId: 'acme', secretName: 'openai-acme' };
    await create(integrationKind, 'immutable', spec);
    for (const [field, value] of [
      ['officeId', 'other'],
      ['integrationId', 'anthropic'],
      ['secretName', 'openai-other'],
      ['instanceLabel', 'second'],
    ] as const) {
      const r = await patch(integrationKind, 'immutable', { spec: { [field]: value } });
      expect(r.code, field).toBe(422);
      expect(r.body).toContain(`spec.${field}`);
      expect(r.body).toContain('immutable');
    }
    expect((await patch(integrationKind, 'immutable', { metadata: { labels: { team: 'a' } } })).code).toBe(
      200,
    );
    expect((await patch(integrationKind, 'immutable', { spec: { officeId: 'acme' } })).code).toBe(200);
    // An instance label, once set, can neither change nor go away.
    await create(integrationKind, 'instanced', { ...spec, instanceLabel: 'first' });
    const removed = await patch(integrationKind, 'instanced', { spec: { instanceLabel: null } });
    expect(removed.code).toBe(422);
    expect(removed.body).toContain('spec.instanceLabel');
  });

  it('refuse changes to what identifies an AgentBinding, and allow toggling and config', async () => {
    const spec = { agentName: 'writer', integrationId: 'openai', secretName: 'openai-acme', enabled: true };
    await create(bindingKind, 'immutable', spec);
    for (const [field, value] of [
      ['agentName', 'reader'],
      ['integrationId', 'anthropic'],
      ['secretName', 'openai-other'],
      ['instanceLabel', 'second'],
    ] as const) {
      const r = await patch(bindingKind, 'immutable', { spec: { [field]: value } });
      expect(r.code, field).toBe(422);
      expect(r.body).toContain(`spec.${field}`);
    }
    expect((await patch(bindingKind, 'immutable', { spec: { enabled: false } })).code).toBe(200);
    expect((await patch(bindingKind, 'immutable', { spec: { config: { TEAM: 'blue' } } })).code).toBe(200);
  });

  it('print a Ready column for Integrations from their Available condition', async () => {
    await create(integrationKind, 'ready', {
      integrationId: 'openai',
      officeId: 'acme',
      secretName: 'openai-acme',
    });
    await custom().patchNamespacedCustomObjectStatus(
      {
        ...api(integrationKind),
        name: 'ready',
        body: {
          status: {
            conditions: [
              {
                type: 'Available',
                status: 'True',
                reason: 'Configured',
                message: 'credentials stored; not enabled for any agent',
                lastTransitionTime: new Date().toISOString(),
              },
            ],
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const table = kubectl(['get', `${tag}integrations.${group}`, 'ready', '-n', space.name]);
    expect(table).toMatch(/NAME\s+INTEGRATION\s+INSTANCE\s+STATUS\s+READY\s+AGE/);
    expect(table).toMatch(/^ready\s+openai\s+True\s+\S+$/m);
  });
});

interface OpenApiNode {
  description?: string;
  properties?: Record<string, OpenApiNode>;
  items?: OpenApiNode;
  additionalProperties?: OpenApiNode | boolean;
}
