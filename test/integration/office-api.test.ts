// The office-manager API against a real API server: Secrets and resources written, validated
// against the registry, idempotent, and never echoing a secret value.
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../cluster/crds/crds.ts';
import { InjectBrowser } from '../support/browser.ts';
import { installCrds, kubeConfig, kubeconfigPath, withNamespace } from '../support/kube.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'office-api-bootstrap-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
let ns: Awaited<ReturnType<typeof withNamespace>>;
let office: string;
let s: TestServer;
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const custom = () => kubeConfig().makeApiClient(CustomObjectsApi);

beforeAll(async () => {
  await installCrds();
  ns = await withNamespace('office');
  office = ns.name.replace(/^office-/, 'o');
  await core().patchNamespace({
    name: ns.name,
    body: [{ op: 'add', path: '/metadata/labels/colony.ai~1office', value: office }],
  });
  s = await startTestServer({ KUBECONFIG: kubeconfigPath(), COLONY_BOOTSTRAP_TOKEN: TOKEN });
});
afterAll(async () => {
  await s.close();
  await ns.dispose();
});

const saveSecret = (integration: string, payload: unknown, headers: Record<string, string> = auth) =>
  s.app.inject({
    method: 'POST',
    url: `/api/v1/offices/${office}/integrations/${integration}/secret`,
    payload: payload as object,
    headers,
  });
const readSecret = (name: string) => core().readNamespacedSecret({ name, namespace: ns.name });

describe('POST /api/v1/offices/{officeID}/integrations/{id}/secret', () => {
  it('stores the Secret and the Integration, answers the pending registration and never the value', async () => {
    const res = await saveSecret('openai', { data: { OPENAI_API_KEY: 'sk-very-secret-value' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('sk-very-secret-value');
    expect(res.json()).toEqual({
      officeId: office,
      integrationId: 'openai',
      instanceLabel: null,
      savedKeys: ['OPENAI_API_KEY'],
      registration: {
        Name: 'OpenAI',
        ID: 'openai',
        Status: 'pending',
        SecretName: `openai-${office}`,
        Capabilities: ['llm', 'embeddings'],
        AgentEnvVars: ['OPENAI_API_KEY'],
      },
    });
    const secret = await readSecret(`openai-${office}`);
    expect(Buffer.from(secret.data?.OPENAI_API_KEY ?? '', 'base64').toString()).toBe('sk-very-secret-value');
    expect(secret.metadata?.labels?.['colony.ai/integration']).toBe('openai');
    const cr = (await custom().getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: 'integrations',
      name: 'openai',
    })) as { spec: unknown };
    expect(cr.spec).toEqual({ integrationId: 'openai', officeId: office, secretName: `openai-${office}` });
    expect(JSON.stringify(cr)).not.toContain('sk-very-secret-value');
  });

  it('is idempotent: re-saving the same values changes nothing, new values update the Secret', async () => {
    await saveSecret('anthropic', { data: { ANTHROPIC_API_KEY: 'one' } });
    const first = (await readSecret(`anthropic-${office}`)).metadata?.resourceVersion;
    await saveSecret('anthropic', { data: { ANTHROPIC_API_KEY: 'one' } });
    expect((await readSecret(`anthropic-${office}`)).metadata?.resourceVersion).toBe(first);
    await saveSecret('anthropic', { data: { ANTHROPIC_API_KEY: 'two' } });
    const after = await readSecret(`anthropic-${office}`);
    expect(after.metadata?.resourceVersion).not.toBe(first);
    expect(Buffer.from(after.data?.ANTHROPIC_API_KEY ?? '', 'base64').toString()).toBe('two');
  });

  it('gives each instance of a multiInstance integration its own Secret', async () => {
    const res = await saveSecret('github', { data: { INSTANCE_LABEL: 'work', GITHUB_TOKEN: 'ghp_1' } });
    expect(res.json()).toMatchObject({
      instanceLabel: 'work',
      registration: { SecretName: `github-work-${office}` },
    });
    expect((await readSecret(`github-work-${office}`)).data).not.toHaveProperty('INSTANCE_LABEL');
  });

  it.each([
    ['github', { data: { GITHUB_TOKEN: 'x' } }, 400, 'body.data.INSTANCE_LABEL'],
    ['github', { data: { INSTANCE_LABEL: 'Work!', GITHUB_TOKEN: 'x' } }, 400, 'body.data.INSTANCE_LABEL'],
    ['openai', { data: {} }, 400, 'body.data.OPENAI_API_KEY'],
    ['openai', { data: { OPENAI_API_KEY: '  ' } }, 400, 'body.data.OPENAI_API_KEY'],
    ['openai', { data: { OPENAI_API_KEY: 'x', PATH: '/evil' } }, 400, 'body.data.PATH'],
    ['openai', { data: { OPENAI_API_KEY: 'x', COLONY_AGENT_NAME: 'y' } }, 400, 'body.data.COLONY_AGENT_NAME'],
    ['openai', { data: { OPENAI_API_KEY: 'x', UNKNOWN: 'y' } }, 400, 'body.data.UNKNOWN'],
    ['openai', { secretName: 'other', data: { OPENAI_API_KEY: 'x' } }, 400, 'body.secretName'],
    ['openai', { data: { OPENAI_API_KEY: 1 } }, 400, 'body.data.OPENAI_API_KEY'],
  ])('refuses %s %j naming %s', async (id, payload, status, location) => {
    const res = await saveSecret(id, payload);
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.json().errors.map((e: { location: string }) => e.location)).toContain(location);
    expect(res.body).not.toMatch(/evil|"y"/);
  });

  it('answers 404 for an unknown integration or office, and 401 without a token', async () => {
    expect((await saveSecret('not-an-integration', { data: {} })).statusCode).toBe(404);
    const noOffice = await s.app.inject({
      method: 'POST',
      url: '/api/v1/offices/no-such-office/integrations/openai/secret',
      payload: { data: { OPENAI_API_KEY: 'x' } },
      headers: auth,
    });
    expect(noOffice.statusCode).toBe(404);
    const anonymous = await saveSecret('openai', { data: { OPENAI_API_KEY: 'x' } }, {});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toContain('resource_metadata=');
  });

  it('refuses malformed JSON, wrong types and oversize bodies with problem+json, writing nothing', async () => {
    const raw = (payload: string, type = 'application/json') =>
      s.app.inject({
        method: 'POST',
        url: `/api/v1/offices/${office}/integrations/discord/secret`,
        payload,
        headers: { ...auth, 'content-type': type },
      });
    const answers = [
      await raw('{"data": {"DISCORD_BOT_TOKEN": '),
      await raw('{"data": {"DISCORD_BOT_TOKEN": 42}}'),
      await raw('{"data": ["bot-token"]}'),
      await raw('{"data": {"DISCORD_BOT_TOKEN": "bot-token"}}', 'text/plain'),
      await raw(JSON.stringify({ data: { DISCORD_BOT_TOKEN: 'x'.repeat(2_000_000) } })),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([400, 400, 400, 415, 413]);
    for (const a of answers) expect(a.headers['content-type']).toContain('application/problem+json');
    await expect(readSecret(`discord-${office}`)).rejects.toMatchObject({ code: 404 });
  });

  it('converges when many saves of one integration race: one Secret, one Integration, the last values', async () => {
    const saves = await Promise.all(
      Array.from({ length: 12 }, (_, i) => saveSecret('gemini', { data: { GEMINI_API_KEY: `key-${i}` } })),
    );
    expect(saves.every((r) => r.statusCode === 200)).toBe(true);
    const secret = await readSecret(`gemini-${office}`);
    const value = Buffer.from(secret.data?.GEMINI_API_KEY ?? '', 'base64').toString();
    expect(value).toMatch(/^key-\d+$/);
    const list = await s.app.inject({ url: `/api/v1/offices/${office}/integrations`, headers: auth });
    const gemini = list
      .json()
      .integrations.filter((i: { integrationId: string }) => i.integrationId === 'gemini');
    expect(gemini).toHaveLength(1);
  });
});

describe('POST /api/v1/offices/{officeID}/integrations/{id}/agents/{agentName}', () => {
  it('upserts the AgentBinding for a configured integration', async () => {
    await saveSecret('openai', { data: { OPENAI_API_KEY: 'sk-x' } });
    const toggle = (enabled: boolean) =>
      s.app.inject({
        method: 'POST',
        url: `/api/v1/offices/${office}/integrations/openai/agents/writer`,
        payload: { enabled, secretName: `openai-${office}` },
        headers: auth,
      });
    expect((await toggle(true)).json()).toMatchObject({
      agentName: 'writer',
      enabled: true,
      integrationId: 'openai',
    });
    const res = await toggle(false);
    expect(res.json().enabled).toBe(false);
    const cr = (await custom().getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: 'agentbindings',
      name: 'writer-openai',
    })) as { spec: { enabled: boolean } };
    expect(cr.spec.enabled).toBe(false);
  });

  it('refuses an integration that was never configured with that secret', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: `/api/v1/offices/${office}/integrations/slack/agents/writer`,
      payload: { enabled: true, secretName: `slack-${office}` },
      headers: auth,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toContain('save its credentials first');
  });
});

describe('GET and DELETE /api/v1/offices/{officeID}/integrations', () => {
  it('lists the office’s integrations with their agents, and deletes one with its Secret', async () => {
    const list = (
      await s.app.inject({ url: `/api/v1/offices/${office}/integrations`, headers: auth })
    ).json();
    const openai = list.integrations.find((i: { integrationId: string }) => i.integrationId === 'openai');
    expect(openai.registration.Status).toBe('pending');
    expect(openai.agents).toEqual([{ agentName: 'writer', enabled: false, conditions: [] }]);
    const del = await s.app.inject({
      method: 'DELETE',
      url: `/api/v1/offices/${office}/integrations/anthropic/secret`,
      headers: auth,
    });
    expect(del.statusCode).toBe(204);
    await expect(readSecret(`anthropic-${office}`)).rejects.toMatchObject({ code: 404 });
    const again = await s.app.inject({
      method: 'DELETE',
      url: `/api/v1/offices/${office}/integrations/anthropic/secret`,
      headers: auth,
    });
    expect(again.statusCode).toBe(404);
    const needsInstance = await s.app.inject({
      method: 'DELETE',
      url: `/api/v1/offices/${office}/integrations/github/secret`,
      headers: auth,
    });
    expect(needsInstance.statusCode).toBe(400);
  });
});

describe('per-office operator credentials', () => {
  /** An account that is a member of `memberOf`, and an API key of it bound to `boundTo`. */
  async function operatorKey(
    memberOf: string[],
    boundTo: string[] | 'all',
    scopes = ['offices:read', 'offices:write'],
  ) {
    const b = new InjectBrowser(s.app);
    const email = `operator-${memberOf.join('-')}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
    await b.signUp({ name: 'Operator', email, password: 'a long enough passphrase' });
    for (const o of memberOf) {
      const put = await s.app.inject({
        method: 'PUT',
        url: `/api/v1/offices/${o}/members`,
        headers: auth,
        payload: { email },
      });
      expect(put.statusCode).toBe(201);
    }
    await b.get('/account');
    const binding: Record<string, string | string[]> =
      boundTo === 'all' ? { binding: 'all' } : { binding: 'selected', office: boundTo };
    const res = await b.submit('/account/keys', { name: 'operator', scope: scopes, ...binding });
    // The key is shown by the page the POST redirects to.
    const shown = res.statusCode === 303 ? await b.get(String(res.headers.location)) : res;
    const key = /id="api-key">([^<]+)</.exec(shown.body)?.[1];
    if (!key) throw new Error(`no key created: ${res.statusCode}`);
    return { authorization: `Bearer ${key}` };
  }

  it('saves credentials with a key bound to the office', async () => {
    const headers = await operatorKey([office], [office]);
    const res = await saveSecret('openai', { data: { OPENAI_API_KEY: 'sk-from-operator' } }, headers);
    expect(res.statusCode).toBe(200);
    expect(res.json().savedKeys).toEqual(['OPENAI_API_KEY']);
  });

  it('answers 403 to a key bound to another office, before touching the cluster', async () => {
    const headers = await operatorKey(['elsewhere'], ['elsewhere']);
    const res = await saveSecret('openai', { data: { OPENAI_API_KEY: 'sk-nope' } }, headers);
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.json().code).toBe('forbidden');
    const list = await s.app.inject({ url: `/api/v1/offices/${office}/integrations`, headers });
    expect(list.statusCode).toBe(403);
  });

  it('answers 403 insufficient_scope to a read-only key that tries to write', async () => {
    const headers = await operatorKey([office], 'all', ['offices:read']);
    expect((await s.app.inject({ url: `/api/v1/offices/${office}/integrations`, headers })).statusCode).toBe(
      200,
    );
    const res = await saveSecret('openai', { data: { OPENAI_API_KEY: 'sk-nope' } }, headers);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('insufficient_scope');
  });
});
