// The OAuth Connect flow end to end: a signed-in member of the office, the real server, a real
// oidc-provider on loopback as the provider, tokens only in the Kubernetes Secret, refresh, a
// refused refresh, reconnect, and the refusals (state replayed, raced, foreign, expired; no access).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../api/config.ts';
import { buildServer, loggerOptions } from '../../api/server.ts';
import { runCli } from '../../cli/run.ts';
import { ANNOTATION_CHECKSUM } from '../../cluster/labels.ts';
import { ColonyController } from '../../controller/colony-controller.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { InjectBrowser } from '../support/browser.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, kubeconfigPath, withNamespace } from '../support/kube.ts';
import { oauthManifest as manifest, oauthSection } from '../support/oauth-manifests.ts';
import { startTestProvider, type TestProvider } from '../support/oauth-provider.ts';
import { TEST_BASE_URL } from '../support/server.ts';

const TOKEN = 'connect-bootstrap-token-0123456789';
const bearer = { authorization: `Bearer ${TOKEN}` };
const CLIENT = { clientId: 'colony-test-client', clientSecret: 'client-secret-for-the-connect-test' };
let seq = 0;
const person = () => ({
  name: 'Grace',
  email: `grace${++seq}@example.com`,
  password: 'a long enough passphrase',
});

let provider: TestProvider;
let ns: Awaited<ReturnType<typeof withNamespace>>;
let office: string;
let app: FastifyInstance;
let controller: ColonyController;
let dir: string;
let dataDir: string;
let clock = Date.now();
const logs: string[] = [];
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const apps = () => kubeConfig().makeApiClient(AppsV1Api);

function writeRegistry(issuer: string): string {
  const root = mkdtempSync(join(tmpdir(), 'colony-connect-registry-'));
  const add = (id: string, yaml: string) => {
    mkdirSync(join(root, id));
    writeFileSync(join(root, id, 'manifest.yaml'), yaml);
    writeFileSync(join(root, id, 'guide.md'), `# ${id}\n\nClick Connect and approve.\n`);
  };
  add('acme-mail', manifest('acme-mail', oauthSection('acme-mail', issuer)));
  const instanceField =
    'requiredSecrets:\n  - { key: INSTANCE_LABEL, label: Instance, type: text, required: true }\n';
  add(
    'acme-team',
    manifest('acme-team', `multiInstance: true\n${oauthSection('acme-team', issuer)}`).replace(
      'requiredSecrets: []\n',
      instanceField,
    ),
  );
  // Registered with no OAuth client: the flow must say so rather than start.
  add('acme-docs', manifest('acme-docs', oauthSection('acme-docs', issuer)));
  add(
    'acme-files',
    `id: acme-files
name: Acme Files
description: Files, which Acme Chat conflicts with.
icon: acme
category: services
wizard: guide
requiredSecrets:
  - { key: ACME_FILES_KEY, label: Key, type: password, required: true }
agentEnvVars: [ACME_FILES_KEY]
version: "1.0.0"
`,
  );
  add(
    'acme-notes',
    `id: acme-notes
name: Acme Notes
description: Notes, with a config file that needs the region.
icon: acme
category: services
wizard: guide
requiredSecrets:
  - { key: ACME_NOTES_KEY, label: Key, type: password, required: true }
  - { key: ACME_NOTES_REGION, label: Region, type: text, required: false }
agentEnvVars: [ACME_NOTES_KEY]
version: "1.0.0"
credentialFiles:
  - path: /home/agent/.acme/notes.json
    template: '{"key": "{{ACME_NOTES_KEY}}", "region": "{{ACME_NOTES_REGION}}"}'
`,
  );
  add('acme-chat', manifest('acme-chat', `conflicts: [acme-files]\n${oauthSection('acme-chat', issuer)}`));
  return root;
}

beforeAll(async () => {
  await installCrds();
  provider = await startTestProvider({ ...CLIENT, redirectUri: `${TEST_BASE_URL}/connect/callback` });
  dir = writeRegistry(provider.issuer);
  ns = await withNamespace('office-connect');
  office = ns.name.replace(/^office-/, 'k');
  await core().patchNamespace({
    name: ns.name,
    body: [{ op: 'add', path: '/metadata/labels/colony.ai~1office', value: office }],
  });
  dataDir = mkdtempSync(join(tmpdir(), 'colony-connect-'));
  const config = loadConfig({
    COLONY_DATA_DIR: dataDir,
    COLONY_BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: 'info',
    KUBECONFIG: kubeconfigPath(),
    COLONY_BOOTSTRAP_TOKEN: TOKEN,
    COLONY_INTEGRATIONS_DIR: dir,
    COLONY_CREDENTIAL_CHECKS: 'false',
    COLONY_OAUTH_CLIENTS: JSON.stringify({ 'acme-mail': CLIENT, 'acme-team': CLIENT, 'acme-chat': CLIENT }),
    // Every token the provider issues (an hour) is due for refresh at once.
    COLONY_OAUTH_REFRESH_SECONDS: '7200',
  });
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = { ...(loggerOptions(config) as object), stream };
  app = await buildServer(config, { validateResponses: true, runJobs: false, now: () => clock, logger });
  await app.ready();
  controller = new ColonyController({
    kc: kubeConfig(),
    registry: loadRegistry(dir),
    resyncMs: 0,
    namespace: ns.name,
    initImage: 'toolbox:test',
    credentialChecks: false,
  });
  await controller.start();
});

afterAll(async () => {
  await controller?.stop();
  await app?.close();
  await provider?.close();
  await ns?.dispose();
  rmSync(dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** A signed-up account that is a member of the office, with its browser. */
async function member(): Promise<InjectBrowser> {
  const b = new InjectBrowser(app);
  const p = person();
  await b.signUp(p);
  const res = await app.inject({
    method: 'PUT',
    url: `/api/v1/offices/${office}/members`,
    headers: bearer,
    payload: { email: p.email, role: 'operator' },
  });
  expect(res.statusCode).toBeLessThan(300);
  return b;
}

async function secretData(name: string): Promise<Record<string, string>> {
  const s = await core().readNamespacedSecret({ name, namespace: ns.name });
  return Object.fromEntries(
    Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

const callbackPath = (u: URL) => `${u.pathname}${u.search}`;

/** Start → provider (login and consent) → the callback URL it sends the browser back to. */
async function toProvider(b: InjectBrowser, id: string, query = `office=${office}`) {
  const start = await b.get(`/connect/${id}?${query}`);
  expect(start.statusCode).toBe(303);
  const location = String(start.headers.location);
  return provider.authorize(location);
}

async function connection(id: string) {
  const list = await app.inject({ url: `/api/v1/offices/${office}/integrations`, headers: bearer });
  expect(list.statusCode).toBe(200);
  return list.json().integrations.find((i: { integrationId: string }) => i.integrationId === id);
}

describe('Connect flow against a real OAuth provider', () => {
  let firstAccess = '';

  it('gives operators the browser link, and refuses what cannot be connected', async () => {
    const link = await app.inject({
      method: 'POST',
      url: `/api/v1/offices/${office}/integrations/acme-mail/connect`,
      headers: bearer,
    });
    expect(link.statusCode).toBe(200);
    expect(link.json()).toEqual({ connectUrl: `${TEST_BASE_URL}/connect/acme-mail?office=${office}` });
    const post = (id: string, q = '', headers: Record<string, string> = bearer) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/offices/${office}/integrations/${id}/connect${q}`,
        headers,
      });
    expect((await post('acme-team', '?instance=eu')).json().connectUrl).toBe(
      `${TEST_BASE_URL}/connect/acme-team?office=${office}&instance=eu`,
    );
    const noBearer = await post('acme-mail', '', {});
    expect(noBearer.statusCode).toBe(401);
    expect(noBearer.headers['content-type']).toContain('application/problem+json');
    expect((await post('nope')).statusCode).toBe(404);
    expect((await post('acme-files')).statusCode).toBe(400);
    expect((await post('acme-docs')).statusCode).toBe(503);
    expect((await post('acme-mail', '?instance=eu')).statusCode).toBe(400);
    expect((await post('acme-mail', '?instance=Not_Valid')).statusCode).toBe(400);
  });

  it('is what the CLI and its SDK client print, over real HTTP', async () => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const cli = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        env: { COLONY_ENDPOINT: address, COLONY_API_KEY: TOKEN },
        cwd: process.cwd(),
      });
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    expect(await cli('integrations', 'connect', 'acme-team', '--office', office, '--instance', 'eu')).toEqual(
      {
        code: 0,
        out: `${TEST_BASE_URL}/connect/acme-team?office=${office}&instance=eu`,
        err: '',
      },
    );
    const refused = await cli('integrations', 'connect', 'acme-files', '--office', office);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('400 invalid_request: Acme Files is not connected by OAuth.');
    expect((await cli('integrations', 'connect', 'acme-mail')).code).toBe(2);
    const show = await cli('integrations', 'show', 'acme-mail');
    expect(show.code).toBe(0);
    expect(show.out).toContain('setup: oauth');
    expect((await cli('integrations', 'list')).out).toContain('acme-mail');
  });

  it('sends a signed-out visitor to sign in first, coming back to the same link', async () => {
    const res = await app.inject({ url: `/connect/acme-mail?office=${office}` });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(
      `/signin?return_to=${encodeURIComponent(`/connect/acme-mail?office=${office}`)}`,
    );
  });

  it('connects: code + PKCE S256 at the provider, tokens only in the Secret', async () => {
    const b = await member();
    const start = await b.get(`/connect/acme-mail?office=${office}`);
    expect(start.statusCode).toBe(303);
    const authorize = new URL(String(start.headers.location));
    expect(authorize.origin).toBe(provider.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('client_id')).toBe(CLIENT.clientId);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${TEST_BASE_URL}/connect/callback`);
    expect(authorize.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);

    const back = await provider.authorize(authorize.href);
    expect(back.searchParams.get('code')).toBeTruthy();
    const done = await b.get(callbackPath(back));
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('is connected');

    const data = await secretData(`acme-mail-${office}`);
    expect(Object.keys(data).sort()).toEqual(['ACME_MAIL_ACCESS_TOKEN', 'ACME_MAIL_REFRESH_TOKEN']);
    firstAccess = data.ACME_MAIL_ACCESS_TOKEN ?? '';
    // The token is genuine: the provider's introspection-free userinfo accepts it.
    const me = await fetch(`${provider.issuer}/me`, { headers: { authorization: `Bearer ${firstAccess}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { sub: string }).sub).toBe('provider-user-1');

    for (const token of Object.values(data)) {
      expect(done.body).not.toContain(token);
      expect(logs.join('')).not.toContain(token);
    }
    expect(logs.join('')).not.toContain(back.searchParams.get('code') ?? '-');
    const c = await connection('acme-mail');
    expect(c.connection).toMatchObject({ status: 'connected', message: null });
    expect(Date.parse(c.connection.expiresAt)).toBeGreaterThan(clock);
    expect(JSON.stringify(c)).not.toContain(firstAccess);
  });

  it('uses a state once: a replayed callback is refused', async () => {
    const b = await member();
    const back = await toProvider(b, 'acme-mail');
    expect((await b.get(callbackPath(back))).statusCode).toBe(200);
    const replay = await b.get(callbackPath(back));
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain('expired or was already used');
  });

  it('lets exactly one of many parallel callbacks with one state through', async () => {
    const b = await member();
    const back = await toProvider(b, 'acme-mail');
    const answers = await Promise.all(Array.from({ length: 8 }, () => b.get(callbackPath(back))));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
  });

  it('binds the state to the account that started it', async () => {
    const starter = await member();
    const back = await toProvider(starter, 'acme-mail');
    const other = await member();
    const res = await other.get(callbackPath(back));
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('started by someone else');
    // The state is spent: the starter cannot finish it afterwards either.
    expect((await starter.get(callbackPath(back))).statusCode).toBe(400);
  });

  it('refuses expired states, unknown states and malformed callbacks', async () => {
    const b = await member();
    const back = await toProvider(b, 'acme-mail');
    clock += 11 * 60_000;
    try {
      expect((await b.get(callbackPath(back))).statusCode).toBe(400);
    } finally {
      clock -= 11 * 60_000;
    }
    expect((await b.get('/connect/callback?state=never-issued&code=x')).statusCode).toBe(400);
    const noState = await b.get('/connect/callback?code=x');
    expect(noState.statusCode).toBe(400);
    expect(noState.headers['content-type']).toContain('text/html');
  });

  it('reports a provider refusal (access_denied) on the page, with a way to start again', async () => {
    const b = await member();
    const start = await b.get(`/connect/acme-mail?office=${office}`);
    const state = new URL(String(start.headers.location)).searchParams.get('state') ?? '';
    const res = await b.get(`/connect/callback?state=${state}&error=access_denied`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('access_denied');
    expect(res.body).toContain(`/connect/acme-mail?office=${office}`);
  });

  it('refuses people who may not act on the office, and links that cannot work', async () => {
    const outsider = new InjectBrowser(app);
    await outsider.signUp(person());
    const res = await outsider.get(`/connect/acme-mail?office=${office}`);
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain(`may not act on office ${office}`);
    const b = await member();
    expect((await b.get(`/connect/nope?office=${office}`)).statusCode).toBe(404);
    expect((await b.get(`/connect/acme-files?office=${office}`)).statusCode).toBe(400);
    expect((await b.get(`/connect/acme-docs?office=${office}`)).statusCode).toBe(503);
    expect((await b.get('/connect/acme-mail')).statusCode).toBe(400);
    expect((await b.get(`/connect/acme-mail?office=${office}&instance=eu`)).statusCode).toBe(400);
  });

  it('connects several named instances, each into its own Secret', async () => {
    const b = await member();
    for (const instance of ['eu', 'us']) {
      const back = await toProvider(b, 'acme-team', `office=${office}&instance=${instance}`);
      expect((await b.get(callbackPath(back))).statusCode).toBe(200);
      const data = await secretData(`acme-team-${instance}-${office}`);
      expect(data.ACME_TEAM_ACCESS_TOKEN).toBeTruthy();
    }
    const list = await app.inject({ url: `/api/v1/offices/${office}/integrations`, headers: bearer });
    const team = list
      .json()
      .integrations.filter((i: { integrationId: string }) => i.integrationId === 'acme-team');
    expect(team.map((t: { instanceLabel: string }) => t.instanceLabel).sort()).toEqual(['eu', 'us']);
    expect(team.every((t: { connection: { status: string } }) => t.connection.status === 'connected')).toBe(
      true,
    );
  });

  it('enforces conflicts both ways: no credentials beside a connected conflict, no connection beside one', async () => {
    const filesSecret = (method: 'POST' | 'DELETE') =>
      app.inject({
        method,
        url: `/api/v1/offices/${office}/integrations/acme-files/secret`,
        headers: bearer,
        ...(method === 'POST' ? { payload: { data: { ACME_FILES_KEY: 'files-key' } } } : {}),
      });
    const b = await member();
    expect((await b.get(callbackPath(await toProvider(b, 'acme-chat')))).statusCode).toBe(200);
    const refused = await filesSecret('POST');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'composition_conflict',
      conflicting: [{ id: 'acme-chat', because: 'acme-chat conflicts with acme-files' }],
    });
    const gone = await app.inject({
      method: 'DELETE',
      url: `/api/v1/offices/${office}/integrations/acme-chat/secret`,
      headers: bearer,
    });
    expect(gone.statusCode).toBe(204);

    expect((await filesSecret('POST')).statusCode).toBe(200);
    const res = await b.get(callbackPath(await toProvider(b, 'acme-chat')));
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('acme-files');
    await expect(
      core().readNamespacedSecret({ name: `acme-chat-${office}`, namespace: ns.name }),
    ).rejects.toThrow();
    expect((await filesSecret('DELETE')).statusCode).toBe(204);
  });

  it('injects the access token into the agents it is enabled for, and a refresh rolls them', async () => {
    await apps().createNamespacedStatefulSet({
      namespace: ns.name,
      body: {
        metadata: { name: 'mailer', labels: { 'colony.ai/agent': 'mailer' } },
        spec: {
          serviceName: 'mailer',
          replicas: 0,
          selector: { matchLabels: { app: 'mailer' } },
          template: {
            metadata: { labels: { app: 'mailer' } },
            spec: { containers: [{ name: 'agent', image: 'busybox' }] },
          },
        },
      },
    });
    const on = await app.inject({
      method: 'POST',
      url: `/api/v1/offices/${office}/integrations/acme-mail/agents/mailer`,
      headers: bearer,
      payload: { enabled: true, secretName: `acme-mail-${office}` },
    });
    expect(on.statusCode).toBe(200);
    const template = async () =>
      (await apps().readNamespacedStatefulSet({ name: 'mailer', namespace: ns.name })).spec?.template;
    const injected = await eventually(async () => {
      const t = await template();
      const env = t?.spec?.containers[0]?.env ?? [];
      return env.some((e) => e.name === 'ACME_MAIL_ACCESS_TOKEN') ? t : undefined;
    }, 20_000);
    const env = injected.spec?.containers[0]?.env ?? [];
    // The access token by reference; the refresh token never reaches the agent.
    expect(env.map((e) => e.name)).toEqual(['ACME_MAIL_ACCESS_TOKEN']);
    expect(env[0]?.valueFrom?.secretKeyRef).toEqual({
      name: `acme-mail-${office}`,
      key: 'ACME_MAIL_ACCESS_TOKEN',
    });
    const checksum = injected.metadata?.annotations?.[ANNOTATION_CHECKSUM];
    expect(checksum).toBeTruthy();

    clock += 1;
    expect(await app.colony.tokenRefresher.refreshDue()).toBeGreaterThanOrEqual(1);
    await eventually(
      async () => (await template())?.metadata?.annotations?.[ANNOTATION_CHECKSUM] !== checksum,
      20_000,
    );
  });

  it('refreshes before expiry: a new access token in the Secret, the refresh token kept working', async () => {
    const refreshed = await app.colony.tokenRefresher.refreshDue();
    expect(refreshed).toBeGreaterThanOrEqual(1);
    const data = await secretData(`acme-mail-${office}`);
    expect(data.ACME_MAIL_ACCESS_TOKEN).not.toBe(firstAccess);
    const me = await fetch(`${provider.issuer}/me`, {
      headers: { authorization: `Bearer ${data.ACME_MAIL_ACCESS_TOKEN}` },
    });
    expect(me.status).toBe(200);
    expect((await connection('acme-mail')).connection.status).toBe('connected');
  });

  it('never refreshes one connection twice when replicas race', async () => {
    const before = await secretData(`acme-mail-${office}`);
    clock += 1; // the lease of the previous pass compares with the clock
    const counts = await Promise.all([
      app.colony.tokenRefresher.refreshDue(),
      app.colony.tokenRefresher.refreshDue(),
      app.colony.tokenRefresher.refreshDue(),
    ]);
    // Each of the three connections is refreshed by exactly one of the passes.
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
    const after = await secretData(`acme-mail-${office}`);
    expect(after.ACME_MAIL_ACCESS_TOKEN).not.toBe(before.ACME_MAIL_ACCESS_TOKEN);
  });

  it('shows a clear status when the provider refuses the refresh, and reconnecting clears it', async () => {
    const { ACME_MAIL_REFRESH_TOKEN: refreshToken = '' } = await secretData(`acme-mail-${office}`);
    const config = new oidc.Configuration(
      { issuer: provider.issuer, revocation_endpoint: `${provider.issuer}/token/revocation` },
      CLIENT.clientId,
      undefined,
      oidc.ClientSecretBasic(CLIENT.clientSecret),
    );
    oidc.allowInsecureRequests(config);
    await oidc.tokenRevocation(config, refreshToken);

    clock += 1;
    await app.colony.tokenRefresher.refreshDue();
    const failed = (await connection('acme-mail')).connection;
    expect(failed.status).toBe('refresh_failed');
    expect(failed.message).toContain('invalid_grant');
    expect(failed.message).toContain('reconnect');
    expect(logs.join('')).not.toContain(refreshToken);

    const b = await member();
    const back = await toProvider(b, 'acme-mail');
    expect((await b.get(callbackPath(back))).statusCode).toBe(200);
    expect((await connection('acme-mail')).connection).toMatchObject({ status: 'connected', message: null });
  });

  it('refuses credentials a credential file cannot be rendered from, naming file and variable, writing nothing', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/offices/${office}/integrations/acme-notes/secret`,
      headers: bearer,
      payload: { data: { ACME_NOTES_KEY: 'notes-key' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().detail).toContain('credentialFiles[0] (/home/agent/.acme/notes.json)');
    expect(res.json().detail).toContain('ACME_NOTES_REGION');
    expect(res.body).not.toContain('notes-key');
    await expect(
      core().readNamespacedSecret({ name: `acme-notes-${office}`, namespace: ns.name }),
    ).rejects.toThrow();
  });

  it('forgets the connection when the integration is deleted', async () => {
    const del = await app.inject({
      method: 'DELETE',
      url: `/api/v1/offices/${office}/integrations/acme-mail/secret`,
      headers: bearer,
    });
    expect(del.statusCode).toBe(204);
    expect(await app.colony.storage.connect.forOffice(office)).toHaveLength(2);
  });
});
