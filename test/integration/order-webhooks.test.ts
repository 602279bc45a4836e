// ACP order webhooks (issue 16, part 6): an operator registers an agent platform; a checkout its API
// key created sends order_create when the owner finishes, and a plan change sends order_update for the
// order it replaces (cancellations: order-webhooks-stripe.test.ts); each event is signed, retried
// after 5xx and timeouts, and never resent after a 2xx. A real receiver checks the signatures itself.
// SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../api/app-storage.ts';
import { ORDER_WEBHOOK_JOB } from '../../api/commerce/order-webhooks/order-events.ts';
import { type InjectBrowser, signedUpOwner } from '../support/browser.ts';
import { acp, planLine } from '../support/checkout.ts';
import { eventually } from '../support/eventually.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';
import { type ReceivedEvent, WebhookReceiver } from '../support/webhook-receiver.ts';

const BOOTSTRAP = 'bootstrap-token-for-order-webhooks';
const SECRET = 'whsec-order-webhooks-0123456789abcdef';
const admin = { authorization: `Bearer ${BOOTSTRAP}` };

describe.each(storageTargets)('ACP order webhooks on $name', (t) => {
  let s: TestServer;
  let storage: Storage;
  let receiver: WebhookReceiver;
  let oldReceiver: WebhookReceiver;
  let apiKey: string;

  beforeAll(async () => {
    receiver = await new WebhookReceiver(SECRET).start();
    oldReceiver = await new WebhookReceiver(`${SECRET}-old`).start();
    s = await startTestServerOn(t, {
      COLONY_CHECKOUT_RATE_LIMIT: '10000',
      COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
      COLONY_ORDER_WEBHOOK_TIMEOUT_MS: '400',
      COLONY_ORDER_WEBHOOK_MAX_ATTEMPTS: '3',
    });
    storage = s.app.colony.storage;
    const created = await register({ id: 'shopper', name: 'Shopper', webhookUrl: receiver.url });
    expect(created.statusCode, created.body).toBe(201);
    apiKey = created.json().apiKey;
  });
  afterAll(async () => {
    await s.close();
    await receiver.close();
    await oldReceiver.close();
  });

  const register = (body: Record<string, unknown>, headers: Record<string, string> = admin) =>
    s.app.inject({
      method: 'POST',
      url: '/api/v1/agent-platforms',
      headers,
      payload: { webhookSecret: SECRET, ...body },
    });

  /** A checkout created with this bearer token and handed to the owner. */
  async function handedOff(bearer: string | undefined, ...items: string[]): Promise<string> {
    const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
    const line_items = items.map((id) => planLine(id));
    const created = await acp(s.app, 'POST', '/checkout_sessions', { line_items }, headers);
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect((await acp(s.app, 'POST', `/checkout_sessions/${id}/complete`, {}, headers)).statusCode).toBe(200);
    return id;
  }

  /** The owner buys at the test processor (first plan) or confirms the change (later ones). */
  async function buy(browser: InjectBrowser, id: string): Promise<void> {
    await browser.get(`/checkout/${id}`);
    const pay = await browser.submit(`/checkout/${id}/pay`, {});
    expect(pay.statusCode, pay.body).toBe(303);
    const reference = new URL(String(pay.headers.location), 'http://x').searchParams.get('reference');
    if (!reference) return; // a plan change: confirmed on the spot
    const form = `/checkout/${id}/test-processor?reference=${reference}`;
    await browser.get(form);
    await browser.submit(form, { name: 'Ada Lovelace', country: 'GB', postal_code: 'N1 9GU' });
    expect((await browser.get(`/checkout/${id}/return?reference=${reference}`)).statusCode).toBe(303);
  }

  const orderIdOf = async (id: string) =>
    (await acp(s.app, 'GET', `/checkout_sessions/${id}`)).json().order.id as string;

  const acceptedFor = (r: WebhookReceiver, sessionId: string, type: string) =>
    r.accepted().filter((e) => e.body.data.checkout_session_id === sessionId && e.body.type === type);

  /** No webhook job is left to run. */
  const webhookJobs = async () =>
    (await storage.jobs.ofType(ORDER_WEBHOOK_JOB)).every(
      (j) => j.status === 'completed' || j.status === 'failed',
    );

  describe('registering a platform', () => {
    it('needs the bootstrap token', async () => {
      const none = await register({ id: 'nobody', name: 'N', webhookUrl: receiver.url }, {});
      expect(none.statusCode).toBe(401);
      expect(none.headers['content-type']).toContain('application/problem+json');
      const wrong = await register(
        { id: 'nobody', name: 'N', webhookUrl: receiver.url },
        { authorization: 'Bearer not-the-token' },
      );
      expect(wrong.statusCode).toBe(401);
      // A platform's own key is no operator credential.
      const platformKey = await register(
        { id: 'nobody', name: 'N', webhookUrl: receiver.url },
        { authorization: `Bearer ${apiKey}` },
      );
      expect(platformKey.statusCode).toBe(401);
      expect((await storage.agentPlatforms.list()).map((p) => p.id)).toEqual(['shopper']);
    });

    it.each([
      ['plain http to another host', { webhookUrl: 'http://agent.example.com/hooks' }, 'webhookUrl'],
      ['credentials in the URL', { webhookUrl: 'https://u:p@agent.example.com/hooks' }, 'webhookUrl'],
      ['a URL that is not one', { webhookUrl: 'not a url' }, 'webhookUrl'],
      ['a short secret', { webhookSecret: 'short-secret' }, 'webhookSecret'],
      ['an unknown ACP version', { apiVersion: '2024-01-01' }, 'apiVersion'],
      ['an id that is no DNS label', { id: 'Not_A_Label' }, 'id'],
      ['an unknown field', { webhookSecrets: SECRET }, ''],
    ])('refuses %s with problem+json', async (_label, patch, field) => {
      const res = await register({
        id: 'bad',
        name: 'Bad',
        webhookUrl: 'https://agent.example.com/h',
        ...patch,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toContain(field);
      // A refused secret is not repeated back.
      expect(res.body).not.toContain('short-secret');
      expect(await storage.agentPlatforms.get('bad')).toBeUndefined();
    });

    it('answers 409 for a taken id, and never shows the secret or the key again', async () => {
      const again = await register({ id: 'shopper', name: 'Again', webhookUrl: receiver.url });
      expect(again.statusCode).toBe(409);
      expect(again.headers['content-type']).toContain('application/problem+json');
      const list = await s.app.inject({ method: 'GET', url: '/api/v1/agent-platforms', headers: admin });
      expect(list.statusCode).toBe(200);
      expect(list.json().platforms).toEqual([
        expect.objectContaining({ id: 'shopper', apiVersion: '2026-04-17', webhookUrl: receiver.url }),
      ]);
      for (const res of [list, again]) {
        expect(res.body).not.toContain(SECRET);
        expect(res.body).not.toContain(apiKey);
      }
    });

    it('changes and removes a platform', async () => {
      const made = await register({ id: 'temp', name: 'Temp', webhookUrl: 'https://agent.example.com/h' });
      expect(made.statusCode).toBe(201);
      const url = '/api/v1/agent-platforms/temp';
      const patched = await s.app.inject({
        method: 'PATCH',
        url,
        headers: admin,
        payload: { apiVersion: '2025-09-29', webhookSecret: `${SECRET}-new` },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json()).toMatchObject({ id: 'temp', apiVersion: '2025-09-29' });
      expect(patched.body).not.toContain(SECRET);
      expect((await storage.agentPlatforms.withSecret('temp'))?.webhookSecret).toBe(`${SECRET}-new`);
      const empty = await s.app.inject({ method: 'PATCH', url, headers: admin, payload: {} });
      expect(empty.statusCode).toBe(400);
      expect((await s.app.inject({ method: 'DELETE', url, headers: admin })).statusCode).toBe(204);
      const gone = await s.app.inject({ method: 'GET', url, headers: admin });
      expect(gone.statusCode).toBe(404);
      expect(gone.headers['content-type']).toContain('application/problem+json');
      expect((await s.app.inject({ method: 'DELETE', url, headers: admin })).statusCode).toBe(404);
    });
  });

  it('sends one signed order_create when the owner finishes the platform’s checkout', async () => {
    const { browser } = await owner();
    const id = await handedOff(apiKey, 'plan_starter_monthly');
    await buy(browser, id);
    const orderId = await orderIdOf(id);
    const [event] = await eventually(async () => {
      const found = acceptedFor(receiver, id, 'order_create');
      return found.length > 0 && found;
    });
    expect(event?.verified).toBe(true);
    expect(event?.requestId).toMatch(/^evt_[a-f0-9]{24}$/);
    expect(event?.body).toMatchObject({
      type: 'order_create',
      data: {
        type: 'order',
        id: orderId,
        checkout_session_id: id,
        permalink_url: 'http://colony.test/account',
        status: 'confirmed',
        line_items: [{ id: 'plan_starter_monthly', quantity: { ordered: 1 } }],
      },
    });
    // Confirming again (a reload of the return) records nothing and sends nothing more.
    await browser.get(`/checkout/${id}`);
    await eventually(webhookJobs);
    expect(receiver.received.filter((e) => e.body.data.checkout_session_id === id)).toHaveLength(1);
  });

  it('sends nothing for a checkout without a platform key, or with a key Colony does not know', async () => {
    const before = await jobCount();
    for (const bearer of [undefined, 'acpk_not-a-registered-key', 'some-agent-token']) {
      const { browser } = await owner();
      const id = await handedOff(bearer, 'plan_starter_monthly');
      await buy(browser, id);
      expect(await orderIdOf(id)).toMatch(/^ord_/);
    }
    expect(await jobCount()).toBe(before);
  });

  it('tells both platforms of a plan change, each in its own ACP version', async () => {
    const made = await register({
      id: 'legacy',
      name: 'Legacy',
      apiVersion: '2025-09-29',
      webhookUrl: oldReceiver.url,
      webhookSecret: `${SECRET}-old`,
    });
    const legacyKey = made.json().apiKey as string;
    const { browser } = await owner();
    const first = await handedOff(legacyKey, 'plan_starter_monthly');
    await buy(browser, first);
    await eventually(async () => acceptedFor(oldReceiver, first, 'order_create').length === 1);
    const second = await handedOff(apiKey, 'plan_pro_annual');
    await buy(browser, second);
    const [created] = await eventually(async () => {
      const found = acceptedFor(receiver, second, 'order_create');
      return found.length > 0 && found;
    });
    expect(created?.body.data).toMatchObject({ id: await orderIdOf(second), status: 'confirmed' });
    const [updated] = await eventually(async () => {
      const found = acceptedFor(oldReceiver, first, 'order_update');
      return found.length > 0 && found;
    });
    expect(updated?.verified).toBe(true);
    // 2025-09-29's order has no id and carries refunds.
    expect(updated?.body).toEqual({
      type: 'order_update',
      data: {
        type: 'order',
        checkout_session_id: first,
        permalink_url: 'http://colony.test/account',
        status: 'canceled',
        refunds: [],
      },
    });
  });

  it('retries after a 500 and a timeout with the same event id, and stops at the 2xx', async () => {
    await eventually(webhookJobs);
    receiver.script.push(500, 'hang');
    const { browser } = await owner();
    const id = await handedOff(apiKey, 'plan_team_monthly');
    await buy(browser, id);
    const attempts = await eventually(async () => {
      const mine = receiver.received.filter((e) => e.body.data.checkout_session_id === id);
      return mine.some((e) => e.answered === 200) && mine;
    });
    expect(attempts.map((e) => e.answered)).toEqual([500, 0, 200]);
    expect(new Set(attempts.map((e) => e.requestId)).size).toBe(1);
    expect(attempts.every((e: ReceivedEvent) => e.verified)).toBe(true);
    // Identical bytes each time; only the signature's timestamp may differ.
    expect(new Set(attempts.map((e) => e.raw)).size).toBe(1);
    await eventually(webhookJobs);
    const job = (await jobsOfSession(id))[0];
    expect(job).toMatchObject({ status: 'completed', attempts: 3 });
    // A later event is delivered after it: the runner is past it, and it was not sent again.
    const later = await handedOff(apiKey, 'plan_starter_monthly');
    await buy((await owner()).browser, later);
    await eventually(async () => acceptedFor(receiver, later, 'order_create').length === 1);
    expect(receiver.received.filter((e) => e.body.data.checkout_session_id === id)).toHaveLength(3);
  });

  it('gives an event up after its attempts run out', async () => {
    await eventually(webhookJobs);
    receiver.script.push(503, 503, 503);
    const { browser } = await owner();
    const id = await handedOff(apiKey, 'plan_starter_annual');
    await buy(browser, id);
    const [job] = await eventually(async () => {
      const jobs = await jobsOfSession(id);
      return jobs[0]?.status === 'failed' && jobs;
    });
    expect(job).toMatchObject({ attempts: 3, error: expect.stringContaining('answered 503') });
    expect(receiver.received.filter((e) => e.body.data.checkout_session_id === id)).toHaveLength(3);
    expect(job?.error).not.toContain(SECRET);
  });

  const owner = () => signedUpOwner(s.app, storage.identity.accounts);

  const jobCount = async () => (await storage.jobs.ofType(ORDER_WEBHOOK_JOB)).length;

  const jobsOfSession = async (sessionId: string) =>
    (await storage.jobs.ofType(ORDER_WEBHOOK_JOB)).filter((j) =>
      (j.input as { body: string }).body.includes(sessionId),
    );
});
