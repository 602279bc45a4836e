// ACP /checkout_sessions: every API-Version snapshot, validated against its official JSON schema, and the
// state machine, request forms and refusals around it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACP_VERSIONS, type AcpVersion } from '../../api/acp/versions.ts';
import { defaultConformanceDir, loadConformance } from '../conformance/schema-validators.ts';
import { acp, type ClockedServer, HOUR, planLine, startClockedServer } from '../support/checkout.ts';
import { eventually } from '../support/eventually.ts';

const schemas = loadConformance(defaultConformanceDir());

let s: ClockedServer;
beforeAll(async () => {
  s = await startClockedServer();
});
afterAll(async () => {
  await s.close();
});

const v = (version: AcpVersion) => ({ 'api-version': version });

function expectValidSession(version: AcpVersion, body: unknown) {
  expect(schemas.acp[version].session(body), JSON.stringify(body)).toEqual([]);
}
function expectValidError(version: AcpVersion, body: unknown) {
  expect(schemas.acp[version].error(body), JSON.stringify(body)).toEqual([]);
}

async function create(version: AcpVersion, body: unknown = { line_items: [planLine()] }) {
  const res = await acp(s.app, 'POST', '/checkout_sessions', body, v(version));
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe.each(ACP_VERSIONS)('ACP %s', (version) => {
  it('runs create, get, update, complete and cancel with bodies valid for the snapshot', async () => {
    const created = await create(version, {
      line_items: [planLine('plan_team_annual')],
      buyer: { email: 'owner@example.com', first_name: 'Ada', last_name: 'Lovelace' },
    });
    expectValidSession(version, created);
    expect(created.id).toMatch(/^cs_[0-9a-f]{32}$/);
    expect(created.status).toBe('ready_for_payment');
    expect(created.currency).toBe('usd');
    expect(created.totals.find((t: { type: string }) => t.type === 'total').amount).toBe(299000);
    expect(created.buyer).toMatchObject({ email: 'owner@example.com', first_name: 'Ada' });
    expect(created.links.map((l: { type: string }) => l.type)).toEqual(['terms_of_use', 'privacy_policy']);
    expect(JSON.stringify(created.messages)).toContain('14 days');

    const got = await acp(s.app, 'GET', `/checkout_sessions/${created.id}`, undefined, v(version));
    expect(got.statusCode).toBe(200);
    expect(got.headers['api-version']).toBe(version);
    expectValidSession(version, got.json());

    const updated = await acp(
      s.app,
      'POST',
      `/checkout_sessions/${created.id}`,
      { line_items: [planLine('plan_starter_monthly'), planLine('addon_backups')] },
      v(version),
    );
    expect(updated.statusCode).toBe(200);
    expectValidSession(version, updated.json());
    expect(updated.json().line_items.map((l: { item: { id: string } }) => l.item.id)).toEqual([
      'plan_starter_monthly',
      'addon_backups',
    ]);

    const completed = await acp(s.app, 'POST', `/checkout_sessions/${created.id}/complete`, {}, v(version));
    expect(completed.statusCode).toBe(200);
    const body = completed.json();
    expectValidSession(version, body);
    expect(body.status).toBe(version >= '2026-01-30' ? 'requires_escalation' : 'in_progress');
    expect(JSON.stringify(body)).toContain(`http://colony.test/checkout/${created.id}`);
    if (version >= '2026-01-30') expect(body.continue_url).toBe(`http://colony.test/checkout/${created.id}`);

    const canceled = await acp(
      s.app,
      'POST',
      `/checkout_sessions/${created.id}/cancel`,
      undefined,
      v(version),
    );
    expect(canceled.statusCode).toBe(200);
    expectValidSession(version, canceled.json());
    expect(canceled.json().status).toBe('canceled');

    for (const op of ['complete', 'cancel']) {
      const again = await acp(s.app, 'POST', `/checkout_sessions/${created.id}/${op}`, {}, v(version));
      expect(again.statusCode).toBe(405);
      expect(again.json().code).toBe('session_final');
      expectValidError(version, again.json());
    }
  });

  it('answers errors in the snapshot error object', async () => {
    const unknown = await acp(s.app, 'GET', '/checkout_sessions/cs_missing', undefined, v(version));
    expect(unknown.statusCode).toBe(404);
    expectValidError(version, unknown.json());
    const bad = await acp(
      s.app,
      'POST',
      '/checkout_sessions',
      { line_items: [{ item: { id: 'plan_gold' } }] },
      v(version),
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_item_id', param: '$.line_items[0].item.id' });
    expectValidError(version, bad.json());
  });

  it('shows an expired session in the snapshot vocabulary', async () => {
    const created = await create(version);
    s.clock.advance(6 * HOUR);
    const got = await acp(s.app, 'GET', `/checkout_sessions/${created.id}`, undefined, v(version));
    expectValidSession(version, got.json());
    expect(got.json().status).toBe(version >= '2026-01-30' ? 'expired' : 'canceled');
    expect(JSON.stringify(got.json().messages)).toContain('expired');
  });
});

describe('ACP request forms', () => {
  it.each([
    ['line_items[].item.id without quantity', { line_items: [{ item: { id: 'plan_pro_monthly' } }] }],
    [
      'line_items[].item.id with quantity',
      { line_items: [{ item: { id: 'plan_pro_monthly' }, quantity: 1 }] },
    ],
    ['the 2025-09-29 items[].id', { items: [{ id: 'plan_pro_monthly', quantity: 1 }] }],
    [
      'the 2026-04-17 line_items[].id',
      { line_items: [{ id: 'plan_pro_monthly' }], currency: 'usd', capabilities: {} },
    ],
  ])('accepts %s', async (_name, body) => {
    const created = await create('2026-04-17', body);
    expect(created.line_items).toHaveLength(1);
    expect(created.line_items[0].item.id).toBe('plan_pro_monthly');
    expect(created.status).toBe('ready_for_payment');
  });

  it('ignores server-owned fields a client sends', async () => {
    const created = await create('2026-04-17', {
      id: 'cs_mine',
      status: 'completed',
      currency: 'eur',
      totals: [{ type: 'total', amount: 1 }],
      continue_url: 'https://evil.example/pay',
      line_items: [{ item: { id: 'plan_pro_monthly', unit_amount: 1 }, quantity: 1, totals: [] }],
    });
    expect(created.id).not.toBe('cs_mine');
    expect(created.status).toBe('ready_for_payment');
    expect(created.currency).toBe('usd');
    expect(created.line_items[0].unit_amount).toBe(9900);
    expect(created.continue_url).toBe(`http://colony.test/checkout/${created.id}`);
  });

  it('echoes Request-Id, accepts Signature and Timestamp, and needs no Authorization', async () => {
    const res = await acp(
      s.app,
      'POST',
      '/checkout_sessions',
      { line_items: [planLine()] },
      { 'request-id': 'req-abc-123', signature: 'c2lnbmF0dXJl', timestamp: '2026-11-23T10:00:00Z' },
    );
    expect(res.statusCode).toBe(201);
    expect(res.headers['request-id']).toBe('req-abc-123');
    expect(res.headers['api-version']).toBe('2026-04-17');
    // An Authorization header an agent sends anyway is not checked.
    const bearer = await acp(s.app, 'GET', `/checkout_sessions/${res.json().id}`, undefined, {
      authorization: 'Bearer not-a-colony-token',
    });
    expect(bearer.statusCode).toBe(200);
  });
});

describe('ACP refusals', () => {
  it.each([
    ['malformed JSON', '{"line_items": [', 'invalid_json', undefined],
    ['no items', {}, 'invalid_request', '$.line_items'],
    ['an empty list', { line_items: [] }, 'invalid_request', '$.line_items'],
    [
      'a string quantity',
      { line_items: [{ item: { id: 'plan_pro_monthly' }, quantity: '1' }] },
      'invalid_request',
      '$.line_items[0].quantity',
    ],
    [
      'a zero quantity',
      { items: [{ id: 'plan_pro_monthly', quantity: 0 }] },
      'invalid_request',
      '$.items[0].quantity',
    ],
    ['a line without an id', { line_items: [{ quantity: 1 }] }, 'invalid_request', '$.line_items[0].item.id'],
    [
      'both forms at once',
      { items: [{ id: 'plan_pro_monthly' }], line_items: [planLine()] },
      'invalid_request',
      '$.items',
    ],
    [
      'a bad buyer email',
      { line_items: [planLine()], buyer: { email: 'not-an-email' } },
      'invalid_request',
      '$.buyer.email',
    ],
    ['line_items of the wrong type', { line_items: 'plan_pro_monthly' }, 'invalid_request', '$.line_items'],
    [
      'more lines than allowed',
      { line_items: Array.from({ length: 21 }, () => planLine()) },
      'invalid_request',
      '$.line_items',
    ],
    [
      'an absurd quantity',
      { line_items: [planLine('plan_pro_monthly', 1_000_000)] },
      'invalid_request',
      '$.line_items[0].quantity',
    ],
    ['a JSON array body', [planLine()], 'invalid_request', undefined],
    ['a JSON null body', 'null', 'invalid_request', '$.line_items'],
  ])('refuses %s with 400', async (_name, body, code, param) => {
    const res = await acp(s.app, 'POST', '/checkout_sessions', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe(code);
    if (param) expect(res.json().param).toBe(param);
    expectValidError('2026-04-17', res.json());
  });

  it('refuses an unknown API-Version with the supported list', async () => {
    const res = await acp(
      s.app,
      'POST',
      '/checkout_sessions',
      { line_items: [planLine()] },
      { 'api-version': '2025-01-01' },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'unsupported_version', supported_versions: [...ACP_VERSIONS] });
    expectValidError('2026-04-17', res.json());
  });

  it('refuses bodies that are not JSON and bodies over the limit', async () => {
    const text = await s.app.inject({
      method: 'POST',
      url: '/checkout_sessions',
      headers: { 'content-type': 'text/plain' },
      payload: 'hi',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe('unsupported_media_type');
    const huge = await acp(s.app, 'POST', '/checkout_sessions', {
      line_items: [planLine()],
      pad: 'x'.repeat(1_100_000),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().code).toBe('payload_too_large');
  });

  it('answers unknown paths and methods with ACP errors, and delegated payment with a clear refusal', async () => {
    const del = await acp(s.app, 'DELETE', '/checkout_sessions/cs_x');
    expect(del.statusCode).toBe(405);
    expect(del.headers.allow).toBe('GET, HEAD, POST');
    expect(del.json()).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed' });
    const unknown = await acp(s.app, 'GET', '/checkout_sessions/cs_x/refund');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('route_not_found');
    const delegate = await acp(s.app, 'POST', '/agentic_commerce/delegate_payment', { payment_method: {} });
    expect(delegate.statusCode).toBe(400);
    expect(delegate.json().code).toBe('delegated_payment_unsupported');
    expect(delegate.json().message).toContain('continue_url');
  });
});

describe('ACP refusals on existing paths', () => {
  it('answers update, complete and cancel of an unknown session with 404, creating nothing', async () => {
    const before = await s.app.colony.storage.checkoutSessions.count();
    for (const path of ['', '/complete', '/cancel']) {
      const res = await acp(s.app, 'POST', `/checkout_sessions/cs_missing${path}`, {
        line_items: [planLine()],
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
      expectValidError('2026-04-17', res.json());
    }
    expect(await s.app.colony.storage.checkoutSessions.count()).toBe(before);
  });

  it.each([
    ['malformed JSON', '{"line_items": [', 'invalid_json'],
    [
      'a string quantity',
      { line_items: [{ item: { id: 'plan_pro_monthly' }, quantity: 'two' }] },
      'invalid_request',
    ],
    ['an unknown item', { line_items: [{ item: { id: 'plan_gold' } }] }, 'invalid_item_id'],
    ['a buyer of the wrong type', { buyer: 'owner@example.com' }, 'invalid_request'],
  ])('refuses an update with %s and leaves the session as it was', async (_name, body, code) => {
    const created = await create('2026-04-17');
    const res = await acp(s.app, 'POST', `/checkout_sessions/${created.id}`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe(code);
    expectValidError('2026-04-17', res.json());
    const after = await acp(s.app, 'GET', `/checkout_sessions/${created.id}`);
    expect(after.body).toBe(JSON.stringify(created));
  });

  it('puts its own Request-Id in place of one that cannot be a header value', async () => {
    const res = await acp(s.app, 'GET', '/checkout_sessions/cs_missing', undefined, {
      'request-id': 'has spaces and ünïcode',
    });
    expect(res.headers['request-id']).toBeDefined();
    expect(res.headers['request-id']).not.toContain(' ');
  });
});

describe('ACP state machine', () => {
  it('holds a cart that cannot be bought at not_ready_for_payment until an update fixes it', async () => {
    const created = await create('2026-04-17', { line_items: [planLine('addon_backups')] });
    expectValidSession('2026-04-17', created);
    expect(created.status).toBe('not_ready_for_payment');
    expect(created.messages[0]).toMatchObject({ type: 'error', code: 'missing' });
    const complete = await acp(s.app, 'POST', `/checkout_sessions/${created.id}/complete`, {});
    expect(complete.statusCode).toBe(400);
    expect(complete.json().code).toBe('session_not_ready');
    const fixed = await acp(s.app, 'POST', `/checkout_sessions/${created.id}`, {
      line_items: [planLine('plan_pro_monthly'), planLine('addon_backups')],
    });
    expect(fixed.json().status).toBe('ready_for_payment');
  });

  it.each([
    ['two plans', [planLine('plan_pro_monthly'), planLine('plan_team_monthly')], '$.line_items[1]'],
    ['a plan bought twice', [planLine('plan_pro_monthly', 2)], '$.line_items[0].quantity'],
    [
      'a monthly add-on with an annual plan',
      [planLine('plan_pro_annual'), planLine('addon_backups')],
      '$.line_items[1]',
    ],
  ])('explains %s as an error message', async (_name, lines, param) => {
    const created = await create('2026-04-17', { line_items: lines });
    expect(created.status).toBe('not_ready_for_payment');
    expect(created.messages[0]).toMatchObject({ type: 'error', code: 'invalid', param });
  });

  it('keeps the hand-off when an update follows complete, and records the buyer', async () => {
    const created = await create('2026-04-17');
    await acp(s.app, 'POST', `/checkout_sessions/${created.id}/complete`, {
      buyer: { email: 'b@example.com' },
    });
    const updated = await acp(s.app, 'POST', `/checkout_sessions/${created.id}`, {
      line_items: [planLine('plan_team_monthly')],
    });
    expect(updated.json()).toMatchObject({
      status: 'requires_escalation',
      buyer: { email: 'b@example.com' },
    });
  });

  it('expires lazily on read and by the sweeper; an expired session cannot move', async () => {
    const lazy = await create('2026-04-17');
    const swept = await create('2026-04-17');
    expect(lazy.expires_at).toBe(new Date(Date.parse(lazy.created_at) + 6 * HOUR).toISOString());
    s.clock.advance(6 * HOUR - 1);
    expect((await acp(s.app, 'GET', `/checkout_sessions/${lazy.id}`)).json().status).toBe(
      'ready_for_payment',
    );
    s.clock.advance(1);
    expect((await acp(s.app, 'GET', `/checkout_sessions/${lazy.id}`)).json().status).toBe('expired');
    expect(await s.app.colony.commerce.checkout.expireDue()).toBeGreaterThanOrEqual(1);
    expect((await s.app.colony.storage.checkoutSessions.get(swept.id))?.status).toBe('expired');
    for (const path of ['', '/complete', '/cancel']) {
      const res = await acp(s.app, 'POST', `/checkout_sessions/${lazy.id}${path}`, {});
      expect(res.statusCode).toBe(405);
    }
  });
});

describe('the expiry sweeper', () => {
  it('expires due sessions and purges old idempotency keys on its own schedule', async () => {
    const swept = await startClockedServer({ COLONY_CHECKOUT_SWEEP_SECONDS: '1' });
    try {
      const created = await acp(
        swept.app,
        'POST',
        '/checkout_sessions',
        { line_items: [planLine()] },
        {
          'idempotency-key': 'sweep-1',
        },
      );
      const { storage } = swept.app.colony;
      swept.clock.advance(25 * HOUR);
      await eventually(
        async () => (await storage.checkoutSessions.get(created.json().id))?.status === 'expired',
      );
      // The key is gone: the same key now creates a new session.
      await eventually(async () => {
        const again = await acp(
          swept.app,
          'POST',
          '/checkout_sessions',
          { line_items: [planLine()] },
          {
            'idempotency-key': 'sweep-1',
          },
        );
        return again.json().id !== created.json().id;
      });
    } finally {
      await swept.close();
    }
  });
});
