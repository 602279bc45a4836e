// Plans enforced where the work happens (issue 16, parts 2–3), on SQLite and PostgreSQL against the
// real API server: self-serve offices by API and from /account, a limit refusal on each surface, a
// feature refusal, a trial that ends unpaid (the office keeps running, cannot grow), admin-created
// offices outside plans, and agent credentials that work on their office only.
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../api/app-storage.ts';
import { BackupServices } from '../../api/backups/backup-services.ts';
import { DAY_MS, initialParts, newSnapshotId } from '../../api/backups/snapshot-model.ts';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { type InjectBrowser, signedUpOwner } from '../support/browser.ts';
import { installCrds, kubeConfig, kubeconfigPath } from '../support/kube.ts';
import { accountKey, ownerWithPlan } from '../support/plans.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const TOKEN = 'entitlements-bootstrap-token-0123456789';
const admin = { authorization: `Bearer ${TOKEN}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const id = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;
const SCOPES = ['offices:read', 'offices:write', 'backups:admin'];

describe.each(storageTargets)('entitlements on $name', (t) => {
  let s: TestServer;
  let storage: Storage;
  const made: string[] = [];
  const cluster = () => new OfficeCluster(kubeConfig());

  beforeAll(async () => {
    await installCrds();
    s = await startTestServerOn(
      t,
      { KUBECONFIG: kubeconfigPath(), COLONY_BOOTSTRAP_TOKEN: TOKEN, COLONY_CHECKOUT_RATE_LIMIT: '10000' },
      { runJobs: false },
    );
    storage = s.app.colony.storage;
  });
  afterAll(async () => {
    await s.close();
    const core = kubeConfig().makeApiClient(CoreV1Api);
    for (const office of made) await core.deleteNamespace({ name: `office-${office}` }).catch(() => {});
  });

  const putOffice = (office: string, headers: Record<string, string>) => {
    made.push(office);
    return s.app.inject({ method: 'PUT', url: `/api/v1/offices/${office}`, headers });
  };
  const saveSecret = (office: string, integration: string, data: Record<string, string>, key: string) =>
    s.app.inject({
      method: 'POST',
      url: `/api/v1/offices/${office}/integrations/${integration}/secret`,
      headers: bearer(key),
      payload: { data },
    });
  const enable = (office: string, agent: string, key: string) =>
    s.app.inject({
      method: 'POST',
      url: `/api/v1/offices/${office}/integrations/openai/agents/${agent}`,
      headers: bearer(key),
      payload: { enabled: true, secretName: `openai-${office}` },
    });
  const schedule = (office: string, enabled: boolean, key: string) =>
    s.app.inject({
      method: 'PUT',
      url: `/api/snapshots/schedules/${office}`,
      headers: bearer(key),
      payload: { enabled, hourUtc: 3, retentionDays: 7 },
    });
  /** A restore of a snapshot of the office just recorded (still pending: the gate comes first). */
  const restore = async (office: string, key: string) => {
    const { snapshot } = await storage.snapshots.create(
      {
        id: newSnapshotId(),
        officeId: office,
        trigger: 'manual',
        description: 'before',
        parts: initialParts(),
        createdBy: 'test',
      },
      Date.now(),
    );
    return s.app.inject({
      method: 'POST',
      url: `/api/snapshots/${snapshot.id}/restore`,
      headers: bearer(key),
      payload: {},
    });
  };
  /** The daily snapshot sweep of one office's namespace, two days from now (any schedule is due). */
  const sweepLater = (office: string) =>
    new BackupServices({
      snapshots: storage.snapshots,
      jobs: storage.jobs,
      blobDir: s.app.colony.config.backups.dir,
      kubeConfig: kubeConfig(),
      officeDatabaseUrl: undefined,
      sweepMs: 0,
      watchNamespace: `office-${office}`,
      schedulesAllowed: (o) => s.app.colony.entitlements.allows(o, 'backups'),
      now: () => Date.now() + 2 * DAY_MS,
    }).sweep(1);
  /** Integrations (or enabled agents) put in the office directly, as if saved earlier. */
  const fill = async (office: string, what: 'integrations' | 'agents', n: number) => {
    for (let i = 0; i < n; i++) {
      if (what === 'integrations')
        await cluster().saveIntegration(`office-${office}`, `filler-${i}`, {
          integrationId: 'filler',
          officeId: office,
          instanceLabel: `n${i}`,
          secretName: `filler-${i}`,
        });
      else
        await cluster().saveBinding(
          `office-${office}`,
          `agent-${i}-filler`,
          { agentName: `agent-${i}`, integrationId: 'filler', secretName: 'filler-0', enabled: true },
          office,
        );
    }
  };

  const ops = id('ops');

  describe('an office created by a cluster admin', () => {
    it('has no billing account and no limits or gated features', async () => {
      const office = ops;
      expect((await putOffice(office, admin)).statusCode).toBe(201);
      expect(await storage.officeBilling.accountOf(office)).toBeUndefined();
      await fill(office, 'integrations', 12);
      expect((await saveSecret(office, 'tailscale', { TS_AUTHKEY: 'tskey-auth-x' }, TOKEN)).statusCode).toBe(
        200,
      );
      expect((await schedule(office, true, TOKEN)).statusCode).toBe(200);
      // Not refused by any plan: only the snapshot's own state stands in the way.
      expect((await restore(office, TOKEN)).json().code).toBe('conflict');
    });
  });

  describe('a Starter owner creating offices through the API', () => {
    let owner: { browser: InjectBrowser; accountId: string };
    let key: string;
    const office = id('self');

    beforeAll(async () => {
      owner = await ownerWithPlan(s.app, 'plan_starter_monthly');
      key = await accountKey(owner.browser, SCOPES);
    });

    it('creates an office it was not a member of, becoming its owner and its billing account', async () => {
      const res = await putOffice(office, bearer(key));
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toEqual({ officeId: office, namespace: `office-${office}` });
      expect(await storage.officeBilling.accountOf(office)).toBe(owner.accountId);
      expect(await storage.identity.officeMembers.role(office, owner.accountId)).toBe('owner');
      expect((await putOffice(office, bearer(key))).statusCode).toBe(200);
    });

    it('refuses a second office on a one-office plan, naming plan, limit, count and the way up', async () => {
      const res = await putOffice(id('second'), bearer(key));
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({
        code: 'plan_limit_reached',
        plan: 'starter',
        planStatus: 'trialing',
        limit: 'offices',
        used: 1,
        allowed: 1,
        upgradeUrl: 'http://colony.test/account',
      });
      expect(res.json().detail).toContain('The Starter plan of account');
      expect(res.json().detail).toContain('allows 1 office and 1 is in use');
    });

    it('refuses a key bound to listed offices, another account’s office, and an account without a plan', async () => {
      const listed = await accountKey(owner.browser, SCOPES, [office]);
      const bound = await putOffice(id('bound'), bearer(listed));
      expect(bound.statusCode).toBe(403);
      expect(bound.json().code).toBe('forbidden');
      const taken = id('taken');
      expect((await putOffice(taken, admin)).statusCode).toBe(201);
      expect((await putOffice(taken, bearer(key))).json().code).toBe('forbidden');
      const planless = await signedUpOwner(s.app, storage.identity.accounts);
      const none = await putOffice(id('none'), bearer(await accountKey(planless.browser, SCOPES)));
      expect(none.statusCode).toBe(403);
      expect(none.json()).toMatchObject({
        code: 'plan_limit_reached',
        plan: null,
        limit: 'offices',
        allowed: 0,
      });
      expect(none.json().detail).toContain('has no plan');
    });

    it('refuses an integration with a per-office service or a database the plan lacks', async () => {
      const service = await saveSecret(office, 'tailscale', { TS_AUTHKEY: 'tskey-auth-x' }, key);
      expect(service.statusCode).toBe(403);
      expect(service.json()).toMatchObject({
        code: 'plan_feature_unavailable',
        plan: 'starter',
        limit: 'office_services',
      });
      expect(service.json().detail).toContain('the Pro and Team plans');
      const database = await saveSecret(office, 'linear', { LINEAR_API_KEY: 'lin_api_x' }, key);
      expect(database.json()).toMatchObject({ code: 'plan_feature_unavailable', limit: 'office_databases' });
      expect((await cluster().listIntegrations(`office-${office}`)).length).toBe(0);
    });

    it('refuses daily snapshots and restores without the Backups add-on, and lets snapshots be turned off', async () => {
      const on = await schedule(office, true, key);
      expect(on.statusCode).toBe(403);
      expect(on.json()).toMatchObject({ code: 'plan_feature_unavailable', limit: 'backups' });
      expect(on.json().detail).toContain('the Backups add-on');
      expect((await schedule(office, false, key)).statusCode).toBe(200);
      const back = await restore(office, key);
      expect(back.statusCode).toBe(403);
      expect(back.json()).toMatchObject({
        code: 'plan_feature_unavailable',
        limit: 'backups',
        plan: 'starter',
      });
    });

    it('is left out of the daily snapshot sweep without the add-on, unlike an admin-created office', async () => {
      // A schedule left on from when the account had the add-on: the sweep no longer honours it.
      const at = Date.now();
      await storage.snapshots.putSchedule({
        ...{ officeId: office, enabled: true, hourUtc: 3, retentionDays: 7 },
        ...{ nextRunAt: at, updatedAt: at },
      });
      expect((await sweepLater(office)).taken).toEqual([]);
      expect((await sweepLater(ops)).taken).toHaveLength(1);
    });

    it('refuses the integration past the limit, and re-saving one that exists is never refused', async () => {
      expect((await saveSecret(office, 'openai', { OPENAI_API_KEY: 'sk-1' }, key)).statusCode).toBe(200);
      await fill(office, 'integrations', 9);
      const over = await saveSecret(office, 'notion', { NOTION_TOKEN: 'secret_x' }, key);
      expect(over.statusCode).toBe(403);
      expect(over.json()).toMatchObject({
        code: 'plan_limit_reached',
        limit: 'integrations',
        used: 10,
        allowed: 10,
      });
      expect((await saveSecret(office, 'openai', { OPENAI_API_KEY: 'sk-2' }, key)).statusCode).toBe(200);
    });

    it('refuses a sixth agent, while an agent already counted may get more integrations', async () => {
      await fill(office, 'agents', 5);
      const over = await enable(office, 'scout', key);
      expect(over.statusCode).toBe(403);
      expect(over.json()).toMatchObject({ code: 'plan_limit_reached', limit: 'agents', used: 5, allowed: 5 });
      const counted = await enable(office, 'agent-0', key);
      expect(counted.statusCode, counted.body).toBe(200);
    });

    it('keeps the office running when the trial ends unpaid, and lets nothing new in', async () => {
      const sub = await storage.subscriptions.ofAccount(owner.accountId);
      // What the processor's subscription event writes when a trial ends without a payment.
      expect(
        await storage.subscriptions.sync(sub?.id ?? '', { status: 'unpaid', trialEnd: null }, Date.now()),
      ).toBe(true);
      const list = await s.app.inject({
        url: `/api/v1/offices/${office}/integrations`,
        headers: bearer(key),
      });
      expect(list.statusCode).toBe(200);
      expect(list.json().integrations.length).toBe(10);
      expect((await saveSecret(office, 'openai', { OPENAI_API_KEY: 'sk-3' }, key)).statusCode).toBe(200);
      const grow = await enable(office, 'newcomer', key);
      expect(grow.statusCode).toBe(403);
      expect(grow.json()).toMatchObject({ code: 'plan_limit_reached', planStatus: 'unpaid', allowed: 0 });
      expect(grow.json().detail).toContain('plan is unpaid: its offices keep running');
      await cluster().deleteIntegration(`office-${office}`, 'filler-0', 'filler-0');
      const freed = await saveSecret(office, 'notion', { NOTION_TOKEN: 'secret_x' }, key);
      expect(freed.json()).toMatchObject({ code: 'plan_limit_reached', limit: 'integrations', allowed: 0 });
      expect((await putOffice(id('later'), bearer(key))).json().planStatus).toBe('unpaid');
    });
  });

  describe('a Pro owner on /account', () => {
    let owner: { browser: InjectBrowser; accountId: string };
    const office = id('form');

    beforeAll(async () => {
      owner = await ownerWithPlan(s.app, 'plan_pro_monthly');
    });

    it('creates an office with the form, as the page posts it (CSRF token and all)', async () => {
      const page = await owner.browser.get('/account');
      expect(page.body).toContain('id="new-office"');
      expect(page.body).toMatch(/id="office-room">Your Pro plan: <strong>0 of 3<\/strong>/);
      const forged = await owner.browser.submit('/account/offices', { officeId: office, _csrf: 'forged' });
      expect(forged.statusCode).toBe(403);
      made.push(office);
      const res = await owner.browser.submit('/account/offices', { officeId: office });
      expect(res.statusCode, res.body).toBe(303);
      expect(res.headers.location).toBe('/account');
      const after = await owner.browser.get('/account');
      expect(after.body).toContain(`<code>${office}</code></td><td>owner`);
      expect(after.body).toMatch(/<strong>1 of 3<\/strong>/);
      expect(await storage.officeBilling.accountOf(office)).toBe(owner.accountId);
      const again = await owner.browser.submit('/account/offices', { officeId: office });
      expect(again.statusCode).toBe(409);
      expect(again.body).toContain('already exists');
    });

    it('gives an office two accounts claim at the same moment to exactly one of them', async () => {
      const rival = await ownerWithPlan(s.app, 'plan_pro_monthly');
      const keys = [await accountKey(owner.browser, SCOPES), await accountKey(rival.browser, SCOPES)];
      const contested = id('contested');
      const answers = await Promise.all(keys.map((k) => putOffice(contested, bearer(k))));
      expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(1);
      // The other one finds it claimed: by its billing row (409) or by its members (403).
      expect(answers.filter((a) => a.statusCode === 409 || a.statusCode === 403)).toHaveLength(1);
      const winner = answers[0]?.statusCode === 201 ? owner.accountId : rival.accountId;
      const loser = winner === owner.accountId ? rival.accountId : owner.accountId;
      expect(await storage.officeBilling.accountOf(contested)).toBe(winner);
      expect(await storage.identity.officeMembers.role(contested, loser)).toBeUndefined();
      expect(await storage.officeBilling.officesOf(loser)).not.toContain(contested);
      await s.app.inject({
        method: 'DELETE',
        url: `/api/v1/offices/${contested}`,
        headers: bearer(keys[winner === owner.accountId ? 0 : 1] ?? ''),
      });
    });

    it('refuses the form for an account without a plan, saying why', async () => {
      const planless = await signedUpOwner(s.app, storage.identity.accounts);
      await planless.browser.get('/account');
      const res = await planless.browser.submit('/account/offices', { officeId: id('none') });
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('has no plan');
    });

    it('provisions an agent credential that works on its office only, and never as the owner', async () => {
      await owner.browser.get('/account');
      const res = await owner.browser.submit('/account/agent-credentials', { office, agent: 'scout' });
      expect(res.statusCode, res.body).toBe(303);
      const shown = await owner.browser.get(String(res.headers.location));
      const agentKey = /<p class="secret" id="api-key">([^<]+)<\/p>/.exec(shown.body)?.[1] ?? '';
      const mine = await s.app.inject({
        url: `/api/v1/offices/${office}/integrations`,
        headers: bearer(agentKey),
      });
      expect(mine.statusCode).toBe(200);
      const other = id('other');
      expect((await putOffice(other, admin)).statusCode).toBe(201);
      await storage.identity.officeMembers.upsert(other, owner.accountId, 'owner', Date.now());
      const elsewhere = await s.app.inject({
        url: `/api/v1/offices/${other}/integrations`,
        headers: bearer(agentKey),
      });
      expect(elsewhere.statusCode).toBe(403);
      expect(elsewhere.json().code).toBe('forbidden');
      const remove = await s.app.inject({
        method: 'DELETE',
        url: `/api/v1/offices/${office}`,
        headers: bearer(agentKey),
      });
      expect(remove.statusCode).toBe(403);
      expect(remove.json().detail).toContain('Only an owner');
      const notOwned = await owner.browser.submit('/account/agent-credentials', {
        office: id('nope'),
        agent: 'scout',
      });
      expect(notOwned.statusCode).toBe(403);
    });

    it('provisions one through the API only with the owner’s OAuth token (keys cannot mint keys)', async () => {
      const key = await accountKey(owner.browser, SCOPES);
      const res = await s.app.inject({
        method: 'POST',
        url: `/api/v1/offices/${office}/agent-credentials`,
        headers: bearer(key),
        payload: { agentName: 'scout' },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toMatch(/insufficient_scope|forbidden/);
    });

    it('forgets the billing row when the office is deleted, so it no longer counts', async () => {
      const key = await accountKey(owner.browser, SCOPES);
      const res = await s.app.inject({
        method: 'DELETE',
        url: `/api/v1/offices/${office}`,
        headers: bearer(key),
      });
      expect(res.statusCode, res.body).toBe(204);
      expect(await storage.officeBilling.accountOf(office)).toBeUndefined();
      expect(await storage.officeBilling.officesOf(owner.accountId)).toEqual([]);
      expect(await storage.identity.officeMembers.role(office, owner.accountId)).toBeUndefined();
    });
  });
});
