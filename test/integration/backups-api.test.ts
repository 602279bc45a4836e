// /api/snapshots against the real control plane: bearer tokens with backups scopes, offices,
// problem+json refusals, idempotent creation and the snapshot lifecycle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialParts, newSnapshotId } from '../../api/backups/snapshot-model.ts';
import {
  BOOTSTRAP,
  bearer,
  createOffice,
  issueKeys,
  settled,
  startBackupsServer,
  type TestOffice,
} from '../support/backups-office.ts';
import type { TestServer } from '../support/server.ts';

let s: TestServer;
let keys: Record<string, string> = {};
/** The real API key issued for a grant name. */
const tok = (name: string) => keys[name] ?? name;
let a: TestOffice;
let b: TestOffice;

beforeAll(async () => {
  [a, b] = await Promise.all([createOffice('bka'), createOffice('bkb')]);
  s = await startBackupsServer();
  keys = await issueKeys(s, {
    'reader-a': { scopes: ['backups:read'], offices: [a.id] },
    'writer-a': { scopes: ['backups:write'], offices: [a.id] },
    'admin-b': { scopes: ['backups:admin'], offices: [b.id] },
    'memory-only': { scopes: ['memory:read'], offices: null },
  });
});
afterAll(async () => {
  await s?.close();
  await Promise.all([a?.dispose(), b?.dispose()]);
});

const create = (office: string, token = BOOTSTRAP, headers: Record<string, string> = {}, body?: unknown) =>
  s.app.inject({
    method: 'POST',
    url: '/api/snapshots',
    headers: { ...bearer(tok(token)), ...headers },
    payload: (body ?? { office }) as object,
  });

describe('authentication and scopes', () => {
  it('challenges a request without a token (401, resource_metadata, problem+json)', async () => {
    const res = await s.app.inject({ url: '/api/snapshots' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://colony.test/.well-known/oauth-protected-resource"',
    );
    expect(res.json()).toMatchObject({ status: 401, code: 'unauthorized', instance: '/api/snapshots' });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('refuses a token in the query string and never echoes it', async () => {
    const res = await s.app.inject({ url: `/api/snapshots?access_token=${BOOTSTRAP}` });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_request"');
    expect(res.body).not.toContain(BOOTSTRAP);
  });

  it('refuses an unknown token with invalid_token', async () => {
    const res = await s.app.inject({ url: '/api/snapshots', headers: bearer(tok('not-a-token')) });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it.each([
    ['memory-only', 'GET', '/api/snapshots', 'backups:read'],
    ['reader-a', 'POST', '/api/snapshots', 'backups:write'],
    ['writer-a', 'DELETE', `/api/snapshots/${'snap_'}${'0'.repeat(24)}`, 'backups:admin'],
    ['writer-a', 'POST', `/api/snapshots/snap_${'0'.repeat(24)}/restore`, 'backups:admin'],
  ])('answers 403 insufficient_scope to %s on %s %s, naming %s', async (token, method, url, scope) => {
    const res = await s.app.inject({
      method: method as 'GET',
      url,
      headers: bearer(tok(token)),
      ...(method === 'POST' ? { payload: { office: a.id } } : {}),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      code: 'insufficient_scope',
      detail: `This operation needs the scope ${scope}.`,
    });
    expect(res.headers['www-authenticate']).toContain(`error="insufficient_scope"`);
    expect(res.headers['www-authenticate']).toContain(`scope="${scope}"`);
  });
});

describe('POST /api/snapshots', () => {
  it('answers 202 with a Location and the pending snapshot, then completes it as a job', async () => {
    const res = await create(a.id, tok('writer-a'), {}, { office: a.id, description: 'before the upgrade' });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body.id).toMatch(/^snap_[a-f0-9]{24}$/);
    expect(res.headers.location).toBe(`http://colony.test/api/snapshots/${body.id}`);
    expect(res.headers['retry-after']).toBe('2');
    expect(body).toMatchObject({ office: a.id, trigger: 'manual', description: 'before the upgrade' });
    expect(['pending', 'running']).toContain(body.status);
    const done = await settled(s, `/api/snapshots/${body.id}`, tok('reader-a'));
    expect(done.status).toBe('completed');
    expect(done.completedAt).not.toBeNull();
    expect(done.parts.resources).toMatchObject({ status: 'completed', integrations: 0, secrets: 0 });
    expect(done.parts.database).toMatchObject({ status: 'skipped' });
    expect(done.parts.database.detail).toContain('COLONY_OFFICE_DATABASE_URL');
    expect(done.parts.volumes).toEqual({ status: 'completed', items: [] });
  });

  it('creates one snapshot for many concurrent requests with one Idempotency-Key', async () => {
    const key = { 'idempotency-key': `same-${Date.now()}` };
    const results = await Promise.all(Array.from({ length: 8 }, () => create(a.id, BOOTSTRAP, key)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(202));
    expect(new Set(results.map((r) => r.json().id)).size).toBe(1);
    expect(results.filter((r) => r.headers['idempotency-replayed'] === 'true')).toHaveLength(7);
    const clash = await create(b.id, BOOTSTRAP, key);
    expect(clash.statusCode).toBe(422);
    expect(clash.json().code).toBe('idempotency_conflict');
    // Another credential's identical key is its own: no replay of someone else's snapshot.
    const other = await create(a.id, tok('writer-a'), key);
    expect(other.headers['idempotency-replayed']).toBeUndefined();
    expect(other.json().id).not.toBe(results[0]?.json().id);
    await settled(s, `/api/snapshots/${other.json().id}`);
    await settled(s, `/api/snapshots/${results[0]?.json().id}`);
  });

  it.each([
    ['a body that is not JSON', '{"office":', 'malformed_body'],
    ['a wrong type', { office: 5 }, 'invalid_request'],
    ['an unknown field', { office: 'x', keep: 'forever' }, 'invalid_request'],
    ['no office', {}, 'invalid_request'],
    ['an office id that is not a DNS label', { office: 'Office_1' }, 'invalid_request'],
  ])('refuses %s with 400', async (_what, payload, code) => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/snapshots',
      headers: { ...bearer(BOOTSTRAP), 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe(code);
  });

  it('answers 404 for an office with no namespace and 403 for an office the token is not bound to', async () => {
    expect((await create('no-such-office')).statusCode).toBe(404);
    const other = await create(b.id, tok('writer-a'));
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({ code: 'forbidden' });
  });
});

describe('reading, listing and deleting', () => {
  let snapA: string;
  let snapB: string;
  beforeAll(async () => {
    snapA = (await create(a.id)).json().id;
    snapB = (await create(b.id)).json().id;
    await settled(s, `/api/snapshots/${snapA}`);
    await settled(s, `/api/snapshots/${snapB}`);
  });

  it('answers 403 for another office’s snapshot and 404 for an unknown id, 400 for a malformed one', async () => {
    expect(
      (await s.app.inject({ url: `/api/snapshots/${snapB}`, headers: bearer(tok('reader-a')) })).statusCode,
    ).toBe(403);
    const unknown = await s.app.inject({
      url: `/api/snapshots/${newSnapshotId()}`,
      headers: bearer(tok('reader-a')),
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
    const malformed = await s.app.inject({ url: '/api/snapshots/nope', headers: bearer(tok('reader-a')) });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors[0].location).toBe('params.id');
  });

  it('lists only the offices a token is bound to, and refuses a filter on another office', async () => {
    const mine = (await s.app.inject({ url: '/api/snapshots', headers: bearer(tok('reader-a')) })).json();
    expect(mine.data.length).toBeGreaterThan(0);
    expect(mine.data.every((x: { office: string }) => x.office === a.id)).toBe(true);
    const filtered = await s.app.inject({
      url: `/api/snapshots?office=${b.id}`,
      headers: bearer(tok('reader-a')),
    });
    expect(filtered.statusCode).toBe(403);
  });

  it('pages with an opaque cursor and refuses a forged one', async () => {
    const first = (
      await s.app.inject({ url: `/api/snapshots?office=${a.id}&limit=1`, headers: bearer(BOOTSTRAP) })
    ).json();
    expect(first.data).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (
      await s.app.inject({
        url: `/api/snapshots?office=${a.id}&limit=1&cursor=${first.nextCursor}`,
        headers: bearer(BOOTSTRAP),
      })
    ).json();
    expect(second.data[0].id).not.toBe(first.data[0].id);
    expect(second.data[0].createdAt <= first.data[0].createdAt).toBe(true);
    const forged = await s.app.inject({ url: '/api/snapshots?cursor=abc', headers: bearer(BOOTSTRAP) });
    expect(forged.statusCode).toBe(400);
    const tooMany = await s.app.inject({ url: '/api/snapshots?limit=101', headers: bearer(BOOTSTRAP) });
    expect(tooMany.statusCode).toBe(400);
  });

  it('refuses to delete a snapshot still being taken (409)', async () => {
    const { snapshot } = await s.app.colony.storage.snapshots.create(
      {
        id: newSnapshotId(),
        officeId: b.id,
        trigger: 'manual',
        description: null,
        parts: initialParts(),
        createdBy: 't',
      },
      Date.now(),
    );
    const res = await s.app.inject({
      method: 'DELETE',
      url: `/api/snapshots/${snapshot.id}`,
      headers: bearer(tok('admin-b')),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('conflict');
  });

  it('deletes a snapshot (204, idempotent), keeps a tombstone, and refuses to restore it (409)', async () => {
    expect(
      (
        await s.app.inject({
          method: 'DELETE',
          url: `/api/snapshots/${snapB}`,
          headers: bearer(tok('writer-a')),
        })
      ).statusCode,
    ).toBe(403);
    const del = await s.app.inject({
      method: 'DELETE',
      url: `/api/snapshots/${snapB}`,
      headers: bearer(tok('admin-b')),
    });
    expect(del.statusCode).toBe(204);
    const again = await s.app.inject({
      method: 'DELETE',
      url: `/api/snapshots/${snapB}`,
      headers: bearer(tok('admin-b')),
    });
    expect(again.statusCode).toBe(204);
    const shown = (
      await s.app.inject({ url: `/api/snapshots/${snapB}`, headers: bearer(tok('admin-b')) })
    ).json();
    expect(shown).toMatchObject({ status: 'deleted', deletedAt: expect.any(String) });
    const listed = (
      await s.app.inject({ url: `/api/snapshots?office=${b.id}`, headers: bearer(tok('admin-b')) })
    ).json();
    expect(listed.data.map((x: { id: string }) => x.id)).not.toContain(snapB);
    const restore = await s.app.inject({
      method: 'POST',
      url: `/api/snapshots/${snapB}/restore`,
      headers: bearer(tok('admin-b')),
    });
    expect(restore.statusCode).toBe(409);
    expect(restore.json().detail).toContain('was deleted');
  });
});

describe('the OpenAPI document', () => {
  it('lists every backups operation with bearer security and its problem responses', async () => {
    const doc = (await s.app.inject({ url: '/openapi.json' })).json();
    const ops = Object.entries(
      doc.paths as Record<
        string,
        Record<string, { operationId: string; security: unknown; responses: Record<string, unknown> }>
      >,
    )
      .filter(([path]) => path.startsWith('/api/snapshots'))
      .flatMap(([, methods]) => Object.values(methods));
    expect(ops.map((o) => o.operationId).sort()).toEqual([
      'createSnapshot',
      'deleteSnapshot',
      'getSnapshot',
      'getSnapshotRestore',
      'getSnapshotSchedule',
      'listSnapshots',
      'putSnapshotSchedule',
      'restoreSnapshot',
    ]);
    for (const op of ops) {
      expect(op.security).toEqual([{ bearer: [] }]);
      expect(op.responses).toHaveProperty('401');
      expect(op.responses).toHaveProperty('403');
    }
  });
});
