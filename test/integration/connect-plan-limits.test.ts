// The Connect (OAuth) flow under a plan (issue 16, part 2), on SQLite and PostgreSQL with a real
// oidc-provider and the real cluster: a self-serve office at its integrations limit is refused the
// link (problem+json plan_limit_reached) and the browser start, an operator-managed office never is,
// and an office that filled up while the owner was at the provider is refused at the callback with
// nothing written: no tokens, no Secret, no Integration.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import type { InjectBrowser } from '../support/browser.ts';
import { installCrds, kubeConfig, kubeconfigPath } from '../support/kube.ts';
import { oauthManifest, oauthSection } from '../support/oauth-manifests.ts';
import { startTestProvider, type TestProvider } from '../support/oauth-provider.ts';
import { accountKey, ownerWithPlan } from '../support/plans.ts';
import { startTestServerOn, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const TOKEN = 'connect-limits-bootstrap-token-0123456789';
const admin = { authorization: `Bearer ${TOKEN}` };
const CLIENT = { clientId: 'colony-limits-client', clientSecret: 'client-secret-for-the-limits-test' };
const STARTER_INTEGRATIONS = 10;
const made: string[] = [];
let provider: TestProvider;
let registryDir: string;

const core = () => kubeConfig().makeApiClient(CoreV1Api);
const cluster = () => new OfficeCluster(kubeConfig());

/** A registry holding one integration connected by OAuth at the test provider. */
function writeRegistry(issuer: string): string {
  const root = mkdtempSync(join(tmpdir(), 'colony-connect-limits-'));
  mkdirSync(join(root, 'acme-mail'));
  writeFileSync(
    join(root, 'acme-mail', 'manifest.yaml'),
    oauthManifest('acme-mail', oauthSection('acme-mail', issuer)),
  );
  writeFileSync(join(root, 'acme-mail', 'guide.md'), '# Acme Mail\n\nClick Connect and approve.\n');
  return root;
}

beforeAll(async () => {
  await installCrds();
  provider = await startTestProvider({ ...CLIENT, redirectUri: `${TEST_BASE_URL}/connect/callback` });
  registryDir = writeRegistry(provider.issuer);
});
afterAll(async () => {
  await provider?.close();
  rmSync(registryDir, { recursive: true, force: true });
  for (const office of made)
    await core()
      .deleteNamespace({ name: `office-${office}` })
      .catch(() => {});
});

describe.each(storageTargets)('Connect under a plan on $name', (t) => {
  let s: TestServer;
  let owner: { browser: InjectBrowser; accountId: string };
  let key: string;

  beforeAll(async () => {
    s = await startTestServerOn(
      t,
      {
        KUBECONFIG: kubeconfigPath(),
        COLONY_BOOTSTRAP_TOKEN: TOKEN,
        COLONY_CHECKOUT_RATE_LIMIT: '10000',
        COLONY_INTEGRATIONS_DIR: registryDir,
        COLONY_CREDENTIAL_CHECKS: 'false',
        COLONY_OAUTH_CLIENTS: JSON.stringify({ 'acme-mail': CLIENT }),
      },
      { runJobs: false },
    );
    owner = await ownerWithPlan(s.app, 'plan_starter_monthly');
    key = await accountKey(owner.browser, ['offices:read', 'offices:write']);
  });
  afterAll(() => s?.close());

  /** A new office: the Starter owner's own (self-serve, billed to it) or a cluster admin's. */
  async function newOffice(by: 'owner' | 'admin'): Promise<string> {
    const office = `cl-${by}-${randomBytes(3).toString('hex')}`;
    made.push(office);
    const headers = by === 'owner' ? { authorization: `Bearer ${key}` } : admin;
    const res = await s.app.inject({ method: 'PUT', url: `/api/v1/offices/${office}`, headers });
    expect(res.statusCode, res.body).toBe(201);
    return office;
  }
  /** Integrations put in the office directly, as if saved earlier (numbered from `from`). */
  async function fill(office: string, n: number, from = 0): Promise<void> {
    for (let i = from; i < from + n; i++)
      await cluster().saveIntegration(`office-${office}`, `filler-${i}`, {
        integrationId: 'filler',
        officeId: office,
        instanceLabel: `n${i}`,
        secretName: `filler-${i}`,
      });
  }
  const link = (office: string, headers: Record<string, string>) =>
    s.app.inject({
      method: 'POST',
      url: `/api/v1/offices/${office}/integrations/acme-mail/connect`,
      headers,
    });
  const integrationNames = async (office: string) =>
    (await cluster().listIntegrations(`office-${office}`)).map((i) => i.metadata?.name);
  const secretNames = async (office: string) =>
    ((await core().listNamespacedSecret({ namespace: `office-${office}` })).items ?? []).map(
      (x) => x.metadata?.name,
    );

  it('refuses the link and the browser start for a self-serve office at its integrations limit', async () => {
    // The owner's only office (Starter: one), and the account's integrations, all in it.
    const office = await newOffice('owner');
    await fill(office, STARTER_INTEGRATIONS - 1);
    const room = await link(office, { authorization: `Bearer ${key}` });
    expect(room.statusCode, room.body).toBe(200);
    expect(room.json().connectUrl).toBe(`${TEST_BASE_URL}/connect/acme-mail?office=${office}`);

    await fill(office, 1, STARTER_INTEGRATIONS - 1);
    const full = await link(office, { authorization: `Bearer ${key}` });
    expect(full.statusCode).toBe(403);
    expect(full.headers['content-type']).toContain('application/problem+json');
    expect(full.json()).toMatchObject({
      code: 'plan_limit_reached',
      plan: 'starter',
      limit: 'integrations',
      used: STARTER_INTEGRATIONS,
      allowed: STARTER_INTEGRATIONS,
      upgradeUrl: `${TEST_BASE_URL}/account`,
    });
    // The cluster admin's token asks for the same office's link: the office's plan still decides.
    expect((await link(office, admin)).json().code).toBe('plan_limit_reached');

    // The browser link itself (its URL is no secret) is refused too, before the provider is involved.
    const start = await owner.browser.get(`/connect/acme-mail?office=${office}`);
    expect(start.statusCode).toBe(403);
    expect(start.headers['content-type']).toContain('text/html');
    expect(start.body).toContain('allows 10 integrations');
    expect(start.headers.location).toBeUndefined();
    expect(await integrationNames(office)).not.toContain('acme-mail');
  });

  it('never refuses an operator-managed office, however many integrations it has', async () => {
    const office = await newOffice('admin');
    await fill(office, STARTER_INTEGRATIONS + 2);
    const res = await link(office, admin);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().connectUrl).toBe(`${TEST_BASE_URL}/connect/acme-mail?office=${office}`);
  });

  it('checks again at the callback: an office that filled up meanwhile gets nothing written', async () => {
    // The first office is full: free it to one short of the limit, then start while there is room.
    const [office] = (await s.app.colony.storage.officeBilling.officesOf(owner.accountId)) as [string];
    const last = `filler-${STARTER_INTEGRATIONS - 1}`;
    await cluster().deleteIntegration(`office-${office}`, last, last);
    const start = await owner.browser.get(`/connect/acme-mail?office=${office}`);
    expect(start.statusCode, start.body).toBe(303);
    const callback = await provider.authorize(String(start.headers.location));

    // While the owner was at the provider, another integration took the last place.
    await fill(office, 1, STARTER_INTEGRATIONS - 1);
    const back = await owner.browser.get(`${callback.pathname}${callback.search}`);
    expect(back.statusCode).toBe(403);
    expect(back.body).toContain('allows 10 integrations');
    expect(await integrationNames(office)).not.toContain('acme-mail');
    expect((await secretNames(office)).filter((n) => n?.startsWith('acme-mail'))).toEqual([]);
    const listed = await s.app.inject({ url: `/api/v1/offices/${office}/integrations`, headers: admin });
    expect(
      listed.json().integrations.find((i: { integrationId: string }) => i.integrationId === 'acme-mail'),
    ).toBeUndefined();
  });
});
