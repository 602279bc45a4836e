// Idempotency on the checkout POSTs, on SQLite and PostgreSQL: byte-identical replays, conflicts, requests
// in flight, many parallel requests with one key, and keys kept at least 24 hours.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { requestHash } from '../../api/shared/canonical-json.ts';
import {
  type AgentProfileServer,
  startAgentProfileServer,
  ucpAgent,
} from '../conformance/agent-profile-server.ts';
import { acp, type ClockedServer, HOUR, planLine, startClockedServer } from '../support/checkout.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('checkout idempotency on $name', (t) => {
  let s: ClockedServer;
  let storage: Storage;
  let dispose: () => Promise<void>;
  let agents: AgentProfileServer;

  beforeAll(async () => {
    agents = await startAgentProfileServer();
    const made = await t.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
    s = await startClockedServer({ COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true' }, { storage });
  });
  afterAll(async () => {
    await agents.close();
    await s.close();
    await storage.close();
    await dispose();
  });

  const post = (url: string, body: unknown, key: string, headers: Record<string, string> = {}) =>
    acp(s.app, 'POST', url, body, { 'idempotency-key': key, ...headers });

  const countSessions = () => storage.checkoutSessions.count();

  it('replays the original response byte for byte with Idempotent-Replayed', async () => {
    const first = await post('/checkout_sessions', { line_items: [planLine()] }, 'replay-1', {
      'request-id': 'a',
    });
    s.clock.advance(1000);
    const second = await post('/checkout_sessions', { line_items: [planLine()] }, 'replay-1', {
      'request-id': 'b',
    });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.headers['request-id']).toBe('b');
  });

  it('compares bodies by content, not key order', async () => {
    const first = await post(
      '/checkout_sessions',
      { buyer: { email: 'a@b.co', first_name: 'A' }, items: [{ id: 'plan_pro_monthly' }] },
      'order-1',
    );
    const second = await post(
      '/checkout_sessions',
      { items: [{ id: 'plan_pro_monthly' }], buyer: { first_name: 'A', email: 'a@b.co' } },
      'order-1',
    );
    expect(second.body).toBe(first.body);
  });

  it('answers 422 idempotency_conflict for a different body or API-Version under the same key', async () => {
    await post('/checkout_sessions', { line_items: [planLine()] }, 'conflict-1');
    const body = await post(
      '/checkout_sessions',
      { line_items: [planLine('plan_team_monthly')] },
      'conflict-1',
    );
    expect(body.statusCode).toBe(422);
    expect(body.json()).toMatchObject({ type: 'invalid_request', code: 'idempotency_conflict' });
    const version = await post('/checkout_sessions', { line_items: [planLine()] }, 'conflict-1', {
      'api-version': '2025-12-12',
    });
    expect(version.statusCode).toBe(422);
  });

  it('scopes keys to the endpoint', async () => {
    const created = (await post('/checkout_sessions', { line_items: [planLine()] }, 'scope-1')).json();
    const completed = await post(
      `/checkout_sessions/${created.id}/complete`,
      { line_items: [planLine()] },
      'scope-1',
    );
    expect(completed.statusCode).toBe(200);
    expect(completed.json().status).toBe('requires_escalation');
  });

  it('answers 409 with Retry-After while the first request is still running', async () => {
    // A first request that claimed the key and is still running (its fingerprint is this request's).
    await storage.checkoutIdempotency.claim({
      scope: 'acp:create:',
      key: 'flight-1',
      fingerprint: requestHash({ variant: '2026-04-17', body: { line_items: [planLine()] } }),
      now: s.clock.now,
      lockMs: 60_000,
      ttlMs: 24 * HOUR,
    });
    const res = await post('/checkout_sessions', { line_items: [planLine()] }, 'flight-1');
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('idempotency_in_flight');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // A claim whose process died is taken over once its lock runs out.
    s.clock.advance(61_000);
    expect((await post('/checkout_sessions', { line_items: [planLine()] }, 'flight-1')).statusCode).toBe(201);
  });

  it.each([
    ['ACP', 'acp:create:', '/checkout_sessions', '2026-04-17', () => ({})],
    [
      'UCP',
      'ucp:create:',
      '/ucp/v1/checkout-sessions',
      { version: '2026-04-08', checkoutVersion: '2026-04-08' },
      () => ({ 'ucp-agent': ucpAgent(agents) }),
    ],
  ] as const)(
    '%s counts Retry-After down to the end of the first request’s lock',
    async (_p, scope, url, variant, headers) => {
      const body = { line_items: [planLine()] };
      const key = `countdown-${scope}`;
      const lockMs = 60_000;
      await storage.checkoutIdempotency.claim({
        scope,
        key,
        fingerprint: requestHash({ variant, body }),
        now: s.clock.now,
        lockMs,
        ttlMs: 24 * HOUR,
      });
      const retryAfter = async () => (await post(url, body, key, headers())).headers['retry-after'];
      expect(await retryAfter()).toBe('60');
      s.clock.advance(45_500);
      expect(await retryAfter()).toBe('15');
      // Never below one second, even in the lock's last moment.
      s.clock.advance(lockMs - 45_500 - 100);
      expect(await retryAfter()).toBe('1');
    },
  );

  it('creates exactly one session for many parallel requests with one key', async () => {
    const before = await countSessions();
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        post('/checkout_sessions', { line_items: [planLine()] }, 'parallel-1'),
      ),
    );
    expect(await countSessions()).toBe(before + 1);
    const created = results.filter((r) => r.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body)).size).toBe(1);
    for (const r of results.filter((x) => x.statusCode !== 201)) {
      expect(r.statusCode).toBe(409);
      expect(r.headers['retry-after']).toBeDefined();
    }
  });

  it('moves a session once for many parallel completes with one key, and serialises different keys', async () => {
    const created = (await post('/checkout_sessions', { line_items: [planLine()] }, 'par-create')).json();
    const same = await Promise.all(
      Array.from({ length: 20 }, () => post(`/checkout_sessions/${created.id}/complete`, {}, 'par-complete')),
    );
    const ok = same.filter((r) => r.statusCode === 200);
    expect(new Set(ok.map((r) => r.body)).size).toBe(1);
    const revision = (await storage.checkoutSessions.get(created.id))?.revision;
    expect(revision).toBe(2);
    // Different keys: cancels and updates race on the revision check; exactly one cancel wins.
    const racing = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(`/checkout_sessions/${created.id}/cancel`, undefined, `cancel-${i}`),
      ),
    );
    expect(racing.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(racing.filter((r) => r.statusCode === 405)).toHaveLength(9);
  });

  it('replays stored errors too, and frees nothing before 24 hours have passed', async () => {
    const bad = await post('/checkout_sessions', { line_items: [{ item: { id: 'nope' } }] }, 'err-1');
    expect(bad.statusCode).toBe(400);
    const again = await post('/checkout_sessions', { line_items: [{ item: { id: 'nope' } }] }, 'err-1');
    expect(again.body).toBe(bad.body);
    expect(again.headers['idempotent-replayed']).toBe('true');

    const first = await post('/checkout_sessions', { line_items: [planLine()] }, 'ttl-1');
    s.clock.advance(24 * HOUR - 1000);
    expect(await storage.checkoutIdempotency.purgeExpired(s.clock.now)).toBeGreaterThanOrEqual(0);
    const within = await post('/checkout_sessions', { line_items: [planLine()] }, 'ttl-1');
    expect(within.body).toBe(first.body);
    s.clock.advance(2000);
    const after = await post('/checkout_sessions', { line_items: [planLine()] }, 'ttl-1');
    expect(after.statusCode).toBe(201);
    expect(after.json().id).not.toBe(first.json().id);
  });

  it('refuses an unusable Idempotency-Key', async () => {
    const res = await post('/checkout_sessions', { line_items: [planLine()] }, 'x'.repeat(256));
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('idempotency_key_invalid');
  });
});
