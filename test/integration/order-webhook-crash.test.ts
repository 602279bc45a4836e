// An ACP order event survives a crash (issue 16, part 6): the owner finishes a platform's checkout on
// a server whose job runner is off, that process is killed with SIGKILL before anything was sent, and
// the next process on the same database delivers the event exactly once; a third process started
// after the delivery does not send it again. Real child processes, SQLite and PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { ORDER_WEBHOOK_JOB } from '../../api/commerce/order-webhooks/order-events.ts';
import type { StorageTarget } from '../../api/storage/open-database.ts';
import { type ColonyProcess, startColonyProcess } from '../support/colony-process.ts';
import { eventually } from '../support/eventually.ts';
import { HttpBrowser } from '../support/http-browser.ts';
import { storageTargets } from '../support/storage-targets.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

const BOOTSTRAP = 'bootstrap-token-for-the-crash-test';
const SECRET = 'crash-test-webhook-secret-0123456789';

describe.each(storageTargets)('an order event across a crash on $name', (t) => {
  let target: StorageTarget;
  let dispose: () => Promise<void>;
  let storage: Storage;
  let receiver: WebhookReceiver;
  let dataDir: string;
  const running: ColonyProcess[] = [];

  beforeAll(async () => {
    const made = await t.create();
    target = made.target;
    dispose = made.dispose;
    storage = await openStorage(target);
    receiver = await new WebhookReceiver(SECRET).start();
    dataDir = mkdtempSync(join(tmpdir(), 'colony-crash-webhook-'));
  });
  afterAll(async () => {
    for (const p of running) await p.kill();
    await receiver.close();
    await storage.close();
    await dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (runJobs: boolean) => {
    const env = {
      COLONY_DATA_DIR: dataDir,
      COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
      COLONY_CHECKOUT_RATE_LIMIT: '10000',
      COLONY_JOB_POLL_MS: '100',
    };
    const p = await startColonyProcess(target, env, { runJobs });
    running.push(p);
    return p;
  };
  const kill = async (p: ColonyProcess) => {
    running.splice(running.indexOf(p), 1);
    await p.kill();
  };

  /** A platform checkout finished by a new owner, all over HTTP; answers the session id. */
  async function purchase(colony: ColonyProcess, apiKey: string, n: number): Promise<string> {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
    const created = await fetch(`${colony.baseUrl}/checkout_sessions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ line_items: [{ item: { id: 'plan_starter_monthly' } }] }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const done = await fetch(`${colony.baseUrl}/checkout_sessions/${id}/complete`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    expect(done.status).toBe(200);
    const browser = new HttpBrowser(colony.baseUrl);
    await browser.signUp({
      name: 'Owner',
      email: `crash-${n}-${Date.now()}@example.com`,
      password: 'correct horse battery',
    });
    await browser.fetch(`/checkout/${id}`);
    const form = await browser.submit(`/checkout/${id}/pay`, {});
    expect(form.url).toContain('/test-processor?reference=');
    const paid = await browser.submit(form.url, {
      name: 'Ada Lovelace',
      country: 'GB',
      postal_code: 'N1 9GU',
    });
    expect(paid.url).toBe(`${colony.baseUrl}/checkout/${id}`);
    return id;
  }

  const jobs = () => storage.jobs.ofType(ORDER_WEBHOOK_JOB);

  // Three server processes start one after another: well past the default per-test bound.
  it('is delivered exactly once by the process after the one that was killed', {
    timeout: 180_000,
  }, async () => {
    const first = await start(false);
    const registered = await fetch(`${first.baseUrl}/api/v1/agent-platforms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BOOTSTRAP}` },
      body: JSON.stringify({ id: 'crashy', name: 'Crashy', webhookUrl: receiver.url, webhookSecret: SECRET }),
    });
    expect(registered.status).toBe(201);
    const apiKey = ((await registered.json()) as { apiKey: string }).apiKey;

    const sessionId = await purchase(first, apiKey, 1);
    // The event is stored with the order, and nothing has been sent.
    expect((await jobs()).map((j) => j.status)).toEqual(['queued']);
    await kill(first);
    expect(receiver.received).toEqual([]);

    const second = await start(true);
    const [event] = await eventually(async () => receiver.accepted().length > 0 && receiver.accepted());
    expect(event?.verified).toBe(true);
    expect(event?.body).toMatchObject({ type: 'order_create', data: { checkout_session_id: sessionId } });
    await eventually(async () => (await jobs())[0]?.status === 'completed');
    await kill(second);

    // A third process finds the event delivered: the next event it sends is the only new request.
    const third = await start(true);
    const later = await purchase(third, apiKey, 2);
    await eventually(async () => receiver.accepted().some((e) => e.body.data.checkout_session_id === later));
    expect(receiver.received.map((e) => e.body.data.checkout_session_id)).toEqual([sessionId, later]);
    expect(receiver.received.map((e) => e.requestId)).toEqual(
      (await jobs()).map((j) => (j.input as { eventId: string }).eventId),
    );
  });
});
