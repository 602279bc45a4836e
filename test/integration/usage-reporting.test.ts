// Metered usage on the API side (issue 16, part 4), on SQLite and PostgreSQL with a real
// kube-apiserver: /api/v1/me and /account show an account's credits against its plan's allowance,
// and the reporter sends billed offices' usage to the processor once, across retries and new usage,
// to the test processor and to stripe-mock.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../api/app-storage.ts';
import type { PaymentProcessor, UsageReport } from '../../api/commerce/processors/processor.ts';
import { StripeProcessor } from '../../api/commerce/processors/stripe-processor.ts';
import type { TestProcessor } from '../../api/commerce/processors/test-processor.ts';
import { ClusterLedgers } from '../../api/commerce/usage/office-ledgers.ts';
import { UsageReporter } from '../../api/commerce/usage/usage-reporter.ts';
import { LABEL_OFFICE } from '../../cluster/labels.ts';
import { emptyLedger, ledgerConfigMap, USAGE_CONFIGMAP, usagePeriod } from '../../cluster/usage-ledger.ts';
import { signedUpOwner } from '../support/browser.ts';
import { textOf } from '../support/http-browser.ts';
import { kubeConfig, kubeconfigPath } from '../support/kube.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';
import { type StripeMock, startStripeMock } from '../support/stripe-mock.ts';

const BOOTSTRAP = 'usage-bootstrap-token-0123456789';
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const period = () => usagePeriod(Date.now());
/** Milli-credit-seconds for this many credits: what the controller's ledger counts. */
const ledgerUnits = (credits: number) => credits * 1000 * 3600;
const namespaces: string[] = [];

async function office(prefix: string): Promise<{ id: string; namespace: string }> {
  const id = `${prefix}-${randomBytes(3).toString('hex')}`;
  const namespace = `office-${id}`;
  await core().createNamespace({ body: { metadata: { name: namespace, labels: { [LABEL_OFFICE]: id } } } });
  namespaces.push(namespace);
  return { id, namespace };
}

/** Writes the office's ledger as the controller's meter would, with this many credits this period. */
async function meter(namespace: string, credits: number): Promise<void> {
  const ledger = { ...emptyLedger(), periods: { [period()]: ledgerUnits(credits) } };
  const current = await core()
    .readNamespacedConfigMap({ name: USAGE_CONFIGMAP, namespace })
    .catch(() => undefined);
  const version = current?.metadata?.resourceVersion;
  const body = ledgerConfigMap(namespace, ledger, version);
  if (version) await core().replaceNamespacedConfigMap({ name: USAGE_CONFIGMAP, namespace, body });
  else await core().createNamespacedConfigMap({ namespace, body });
}

async function subscribe(storage: Storage, accountId: string, processor: 'test' | 'stripe', ref: string) {
  const now = Date.now();
  await storage.subscriptions.record({
    ...{ id: `sub-${randomBytes(4).toString('hex')}`, accountId, checkoutSessionId: `cs-${ref}` },
    ...{ status: 'active', plan: 'starter', interval: 'month', trialEnd: null, testMode: true },
    ...{ items: [{ itemId: 'plan_starter_monthly', quantity: 1, unitAmount: 2900 }], processor },
    ...{ processorRef: ref, createdAt: now, updatedAt: now },
  });
}

afterAll(async () => {
  for (const name of namespaces)
    await core()
      .deleteNamespace({ name })
      .catch(() => {});
});

describe.each(storageTargets)('metered usage on $name', (t) => {
  let s: TestServer;
  let storage: Storage;
  let billed: { id: string; namespace: string };
  let managed: { id: string; namespace: string };
  let owner: Awaited<ReturnType<typeof signedUpOwner>>;
  let key: string;

  beforeAll(async () => {
    s = await startTestServerOn(
      t,
      { KUBECONFIG: kubeconfigPath(), COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP },
      { runJobs: false },
    );
    storage = s.app.colony.storage;
    owner = await signedUpOwner(s.app, storage.identity.accounts);
    billed = await office('usage');
    managed = await office('managed');
    await storage.officeBilling.record(billed.id, owner.accountId, Date.now());
    await subscribe(storage, owner.accountId, 'test', `tp_${billed.id}`);
    await meter(billed.namespace, 1500);
    await meter(managed.namespace, 40);
    const made = await s.app.colony.identity.apiKeys.create(owner.accountId, {
      name: 'usage',
      scopes: ['read'],
      offices: null,
      expiresInDays: null,
    });
    if (!made.ok) throw new Error(made.detail);
    key = made.token;
  });
  afterAll(() => s.close());

  const me = (token: string) =>
    s.app.inject({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${token}` } });

  it("shows on /api/v1/me the credits of the offices the account pays for, against its plan's allowance", async () => {
    const res = await me(key);
    expect(res.statusCode, res.body).toBe(200);
    const usage = res.json().usage;
    expect(usage).toMatchObject({
      period: period(),
      plan: 'starter',
      allowanceCredits: 1000,
      usedCredits: 1500,
      remainingCredits: 0,
      offices: [{ officeId: billed.id, usedCredits: 1500 }],
    });
    // Past the allowance already: the projection is at least the usage, and its overage priced at 4¢.
    expect(usage.projectedCredits).toBeGreaterThanOrEqual(1500);
    expect(usage.projectedOverageCredits).toBeCloseTo(usage.projectedCredits - 1000, 3);
    expect(usage.projectedOverageCents).toBe(Math.ceil(usage.projectedOverageCredits * 4 - 1e-9));
  });

  it('has no usage for the bootstrap token, nor for an account with neither plan nor office', async () => {
    expect((await me(BOOTSTRAP)).json().usage).toBeNull();
    const other = await signedUpOwner(s.app, storage.identity.accounts);
    const made = await s.app.colony.identity.apiKeys.create(other.accountId, {
      ...{ name: 'other', scopes: ['read'], offices: null, expiresInDays: null },
    });
    if (!made.ok) throw new Error(made.detail);
    expect((await me(made.token)).json().usage).toBeNull();
  });

  it('refuses /api/v1/me without a credential, as problem+json', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/v1/me' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().usage).toBeUndefined();
  });

  it('shows the usage section on /account', async () => {
    const page = await owner.browser.get('/account');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body, 'usage-used')).toBe('1,500');
    expect(page.body).toContain('id="usage-overage"');
    expect(page.body).toContain(`<code>${billed.id}</code>`);
    expect(page.body).not.toContain(managed.id);
  });

  it('shows the same usage on the plan page, where order permalinks land', async () => {
    const page = await owner.browser.get('/account/plan');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body, 'usage-used')).toBe('1,500');
    expect(page.body).toContain(`<code>${billed.id}</code>`);
    expect(page.body).not.toContain(managed.id);
  });

  it('reports billed usage to the processor once, chains new usage on, and never reports operator-managed offices', async () => {
    const reporter = s.app.colony.usage.reporter;
    const processor = s.app.colony.commerce.processor as TestProcessor;
    if (!reporter) throw new Error('no reporter with a cluster configured');
    const mine = () => [...processor.usage.values()].filter((u) => u.identifier.includes(billed.id));
    expect(await reporter.pass()).toMatchObject({ added: 1, sent: 1, failed: 0 });
    expect(mine().map((u) => u.quantity)).toEqual([1_500_000]);
    expect(await reporter.pass()).toMatchObject({ added: 0, sent: 0 });
    await meter(billed.namespace, 1512.25);
    expect(await reporter.pass()).toMatchObject({ added: 1, sent: 1 });
    expect(mine().map((u) => u.quantity)).toEqual([1_500_000, 12_250]);
    expect([...processor.usage.keys()].some((k) => k.includes(managed.id))).toBe(false);
    expect((await storage.usageReports.ofOffice(managed.id)).length).toBe(0);
    const reports = await storage.usageReports.ofOffice(billed.id);
    expect(reports.map((r) => [r.fromTotal, r.toTotal, r.reportedAt !== null])).toEqual([
      [0, 1_500_000, true],
      [1_500_000, 1_512_250, true],
    ]);
  });

  it('retries a report whose answer was lost under the same identifier, and the processor counts it once', async () => {
    const retried = await office('retry');
    const account = await signedUpOwner(s.app, storage.identity.accounts);
    await storage.officeBilling.record(retried.id, account.accountId, Date.now());
    await subscribe(storage, account.accountId, 'test', `tp_${retried.id}`);
    await meter(retried.namespace, 2);
    const processor = s.app.colony.commerce.processor as TestProcessor;
    let lose = 1;
    const flaky: Pick<PaymentProcessor, 'name' | 'reportUsage'> = {
      name: 'test',
      async reportUsage(u: UsageReport) {
        await processor.reportUsage(u);
        if (lose-- > 0) throw new Error('connection reset after the processor took it');
      },
    };
    const reporter = new UsageReporter({
      ...{ ledgers: new ClusterLedgers(kubeConfig()), storage, processor: flaky },
      ...{ intervalMs: 60_000, now: Date.now, log: { warn: () => {} } },
    });
    expect(await reporter.pass()).toMatchObject({ added: 1, sent: 0, failed: 1 });
    expect(await reporter.pass()).toMatchObject({ added: 0, sent: 1, failed: 0 });
    const taken = [...processor.usage.values()].filter((u) => u.identifier.includes(retried.id));
    expect(taken.map((u) => u.quantity)).toEqual([2000]);
    expect(await reporter.pass()).toMatchObject({ added: 0, sent: 0 });
  });
});

/** A proxy to stripe-mock that records each request and can drop answers after Stripe took the request. */
async function recordingProxy(upstream: string) {
  const seen: { path: string; body: string; key: string | undefined }[] = [];
  let drops = 0;
  const target = new URL(upstream);
  const server: Server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const key = incoming.headers['idempotency-key'];
    seen.push({
      path: incoming.url ?? '',
      body: body.toString(),
      key: typeof key === 'string' ? key : undefined,
    });
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        if (incoming.url === '/v1/billing/meter_events' && drops > 0) {
          drops--;
          answer.resume();
          outgoing.socket?.destroy();
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    dropMeterEvents: (n: number) => {
      drops = n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.each(storageTargets)('usage reported to stripe-mock on $name', (t) => {
  let s: TestServer;
  let mock: StripeMock;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;

  beforeAll(async () => {
    mock = await startStripeMock();
    proxy = await recordingProxy(mock.url);
    s = await startTestServerOn(t, { KUBECONFIG: kubeconfigPath() }, { runJobs: false });
  });
  afterAll(async () => {
    await s.close();
    await proxy.close();
    await mock.stop();
  });

  it('sends one billing meter event per stretch, and a retry after a lost answer is the same event', async () => {
    const storage = s.app.colony.storage;
    const billed = await office('stripe');
    const account = await signedUpOwner(s.app, storage.identity.accounts);
    await storage.officeBilling.record(billed.id, account.accountId, Date.now());
    await subscribe(storage, account.accountId, 'stripe', 'sub_123');
    await meter(billed.namespace, 3.5);
    const reporter = new UsageReporter({
      ledgers: new ClusterLedgers(kubeConfig()),
      storage,
      processor: new StripeProcessor({
        secretKey: 'sk_test_123',
        apiUrl: proxy.url,
        meterEvent: 'colony_credits',
      }),
      intervalMs: 60_000,
      now: Date.now,
      log: { warn: () => {} },
    });
    // The first pass loses both answers (the client's own retry included); the next pass sends again.
    proxy.dropMeterEvents(2);
    expect(await reporter.pass()).toMatchObject({ added: 1, sent: 0, failed: 1 });
    expect(await reporter.pass()).toMatchObject({ added: 0, sent: 1, failed: 0 });
    expect(await reporter.pass()).toMatchObject({ added: 0, sent: 0 });
    const events = proxy.seen.filter((r) => r.path === '/v1/billing/meter_events');
    expect(events).toHaveLength(3);
    const [first, , second] = events.map((e) => ({ key: e.key, form: new URLSearchParams(e.body) }));
    expect(first?.form.get('identifier')).toBe(`colony-usage-${billed.id}-${period()}-0`);
    expect(second?.form.get('identifier')).toBe(first?.form.get('identifier'));
    expect(second?.key).toBe(first?.key);
    expect(second?.form.get('timestamp')).toBe(first?.form.get('timestamp'));
    expect(first?.form.get('event_name')).toBe('colony_credits');
    expect(first?.form.get('payload[value]')).toBe('3500');
    expect(first?.form.get('payload[stripe_customer_id]')).toMatch(/^cus_/);
    const reports = await storage.usageReports.ofOffice(billed.id);
    expect(reports.map((r) => [r.toTotal - r.fromTotal, r.reportedAt !== null])).toEqual([[3500, true]]);
  });
});
