// Composability and members rules through the office-manager API on a real API server, and the
// registry routes the setup wizard reads.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds, kubeConfig, kubeconfigPath, withNamespace } from '../support/kube.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'composition-bootstrap-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
let ns: Awaited<ReturnType<typeof withNamespace>>;
let office: string;
let s: TestServer;

beforeAll(async () => {
  await installCrds();
  ns = await withNamespace('office-comp');
  office = ns.name.replace(/^office-/, 'c');
  await kubeConfig()
    .makeApiClient(CoreV1Api)
    .patchNamespace({
      name: ns.name,
      body: [{ op: 'add', path: '/metadata/labels/colony.ai~1office', value: office }],
    });
  s = await startTestServer({ KUBECONFIG: kubeconfigPath(), COLONY_BOOTSTRAP_TOKEN: TOKEN });
});
afterAll(async () => {
  await s.close();
  await ns.dispose();
});

const save = (id: string, data: Record<string, string>) =>
  s.app.inject({
    method: 'POST',
    url: `/api/v1/offices/${office}/integrations/${id}/secret`,
    payload: { data },
    headers: auth,
  });
const toggle = (id: string, agent: string, enabled: boolean, config?: Record<string, string>) =>
  s.app.inject({
    method: 'POST',
    url: `/api/v1/offices/${office}/integrations/${id}/agents/${agent}`,
    payload: { enabled, secretName: `${id}-${office}`, ...(config ? { config } : {}) },
    headers: auth,
  });

describe('registry routes', () => {
  it('serves the wizard its credential fields with their defaults', async () => {
    const res = await s.app.inject({ url: '/api/v1/integrations/slack' });
    expect(res.statusCode).toBe(200);
    const slack = res.json();
    expect(slack.requiredSecrets[0]).toMatchObject({
      key: 'SLACK_BOT_TOKEN',
      type: 'password',
      required: true,
      helpLabel: 'Find it here',
      helpUrl: 'https://api.slack.com/apps',
    });
    expect(slack.layers).toEqual(['taskTemplates', 'members']);
    expect(slack.guideUrl).toBe('http://colony.test/api/v1/integrations/slack/guide');
  });

  it('resolves aliases in search, best match first', async () => {
    const ids = (q: string) =>
      s.app
        .inject({ url: `/api/v1/integrations?q=${encodeURIComponent(q)}` })
        .then((r) => r.json().integrations.map((i: { id: string }) => i.id));
    expect((await ids('claude'))[0]).toBe('anthropic');
    expect(await ids('gmail')).toEqual(['google-workspace']);
    expect(await ids('tg')).toEqual(['telegram']);
    expect(await ids('no such thing')).toEqual([]);
  });

  it('serves each guide as markdown and 404s an unknown id', async () => {
    const guide = await s.app.inject({ url: '/api/v1/integrations/google-workspace/guide' });
    expect(guide.headers['content-type']).toContain('text/markdown');
    expect(guide.body).toContain('http://colony.test/connect/callback');
    expect((await s.app.inject({ url: '/api/v1/integrations/nope' })).statusCode).toBe(404);
  });
});

describe('composability on save and enable', () => {
  it('refuses to configure an integration whose dependency is not configured, naming it', async () => {
    const res = await save('claude-code', {});
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({
      code: 'composition_conflict',
      missing: [{ ref: 'anthropic', satisfiedBy: ['anthropic'] }],
      conflicting: [],
    });
  });

  it('refuses to enable it for an agent that lacks the dependency, then accepts it', async () => {
    expect((await save('anthropic', { ANTHROPIC_API_KEY: 'sk-ant-x' })).statusCode).toBe(200);
    expect((await save('claude-code', {})).statusCode).toBe(200);
    const refused = await toggle('claude-code', 'coder', true);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toBe('Cannot enable claude-code for coder: needs anthropic (anthropic).');
    expect((await toggle('anthropic', 'coder', true)).statusCode).toBe(200);
    expect((await toggle('claude-code', 'coder', true)).statusCode).toBe(200);
  });

  it('refuses to disable or delete what an enabled integration depends on', async () => {
    const disable = await toggle('anthropic', 'coder', false);
    expect(disable.statusCode).toBe(409);
    expect(disable.json()).toMatchObject({ code: 'composition_conflict', requiredBy: ['claude-code'] });
    const del = await s.app.inject({
      method: 'DELETE',
      url: `/api/v1/offices/${office}/integrations/anthropic/secret`,
      headers: auth,
    });
    expect(del.statusCode).toBe(409);
    expect((await toggle('claude-code', 'coder', false)).statusCode).toBe(200);
    expect((await toggle('anthropic', 'coder', false)).statusCode).toBe(200);
  });

  it('lists recommendations from composedWith beside the office’s integrations', async () => {
    await save('slack', { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' });
    const list = await s.app.inject({ url: `/api/v1/offices/${office}/integrations`, headers: auth });
    expect(list.json().recommendations).toEqual([
      { integrationId: 'google-workspace', name: 'Google Workspace', recommendedBy: ['slack'] },
    ]);
  });
});

describe('members rules on enable', () => {
  it('names the rule an agent breaks', async () => {
    await save('whatsapp', { WHATSAPP_ACCESS_TOKEN: 'EAA', WHATSAPP_PHONE_NUMBER_ID: '123' });
    const roles = await toggle('whatsapp', 'ghost', true);
    expect(roles.statusCode).toBe(409);
    expect(roles.json()).toMatchObject({
      code: 'member_rule_violated',
      violations: [
        {
          rule: 'requiredRoles',
          message: 'whatsapp needs agents with the role support; ghost has no workload yet',
        },
      ],
    });
    const config = await toggle('slack', 'writer', true, { SLACK_DEFAULT_CHANNEL: 'Not A Channel!' });
    expect(config.statusCode).toBe(409);
    expect(config.json().violations[0]).toMatchObject({ rule: 'agentConfig' });
    const unknown = await toggle('slack', 'writer', true, { SLACK_OTHER: 'x' });
    expect(unknown.json().violations[0].message).toBe('SLACK_OTHER is not a per-agent setting of slack');
    expect(
      (await toggle('slack', 'writer', true, { SLACK_DEFAULT_CHANNEL: 'announcements' })).statusCode,
    ).toBe(200);
  });
});
