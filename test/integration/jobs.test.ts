// Durable jobs through the API: 202 + Location, polling to completion, idempotency and restarts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { startTestServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const createJob = (body: unknown, headers: Record<string, string> = {}, server = s) =>
  server.app.inject({ method: 'POST', url: '/api/v1/jobs', payload: body as object, headers });

async function pollUntilFinal(server: TestServer, location: string) {
  const path = location.replace(TEST_BASE_URL, '');
  return eventually(async () => {
    const job = (await server.app.inject({ url: path })).json();
    return job.status === 'completed' || job.status === 'failed' ? job : undefined;
  });
}

describe('POST /api/v1/jobs', () => {
  it('answers 202 with a Location to poll until the job is completed', async () => {
    const res = await createJob({ type: 'skills.reindex' });
    expect(res.statusCode).toBe(202);
    const location = String(res.headers.location);
    expect(location).toMatch(new RegExp(`^${TEST_BASE_URL}/api/v1/jobs/job_[0-9a-f]{32}$`));
    expect(res.json()).toMatchObject({ status: 'queued', attempts: 0, type: 'skills.reindex' });
    const done = await pollUntilFinal(s, location);
    expect(done.status).toBe('completed');
    expect(done.result.total).toBeGreaterThanOrEqual(8);
    expect(done.result.unchanged).toBe(done.result.total);
    expect(done.attempts).toBe(1);
    expect(done.finishedAt).not.toBeNull();
  });

  it('runs a status report narrowed to the named services', async () => {
    const res = await createJob({ type: 'status.report', input: { services: ['database'] } });
    const done = await pollUntilFinal(s, String(res.headers.location));
    expect(done.result.services.map((x: { name: string }) => x.name)).toEqual(['database']);
    expect(done.result.status).toBe('operational');
  });

  it('replays the original job for a repeated Idempotency-Key and body', async () => {
    const headers = { 'idempotency-key': `replay-${Date.now()}` };
    const first = await createJob({ type: 'status.report', input: { services: ['api'] } }, headers);
    // Same content, different key order: still the same request.
    const again = await createJob({ input: { services: ['api'] }, type: 'status.report' }, headers);
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
    expect(again.headers.location).toBe(first.headers.location);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
  });

  it('refuses the same key with a different body with 422 problem+json', async () => {
    const headers = { 'idempotency-key': `conflict-${Date.now()}` };
    await createJob({ type: 'skills.reindex' }, headers);
    const res = await createJob({ type: 'status.report' }, headers);
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.json().code).toBe('idempotency_conflict');
  });

  it('creates exactly one job for many concurrent requests with one key', async () => {
    const headers = { 'idempotency-key': `race-${Date.now()}` };
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => createJob({ type: 'skills.reindex' }, headers)),
    );
    expect(answers.every((a) => a.statusCode === 202)).toBe(true);
    expect(new Set(answers.map((a) => a.json().id)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotency-replayed'] !== 'true')).toHaveLength(1);
  });

  it.each([
    [{ type: 'mine.bitcoin' }, 'body.type'],
    [{}, 'body.type'],
    [{ type: 'skills.reindex', extra: 1 }, 'body'],
    [{ type: 'status.report', input: { services: 'api' } }, 'body.input.services'],
    [{ type: 'skills.reindex', input: { anything: true } }, 'body.input'],
    [[1, 2], 'body'],
  ])('refuses %j with 400 naming %s', async (body, location) => {
    const res = await createJob(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { location: string }) => e.location)).toContain(location);
  });

  it('refuses an Idempotency-Key that is too long or has spaces', async () => {
    for (const key of ['x'.repeat(256), 'has space']) {
      const res = await createJob({ type: 'skills.reindex' }, { 'idempotency-key': key });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].location).toBe('headers.idempotency-key');
    }
  });
});

describe('GET /api/v1/jobs/{id}', () => {
  it('answers 404 problem+json for an unknown id', async () => {
    const res = await s.app.inject({ url: '/api/v1/jobs/job_unknown' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });
});

describe('durability', () => {
  it('finishes a job accepted by a server that stopped before running it', async () => {
    const first = await startTestServer({}, { runJobs: false });
    const dataDir = first.dataDir;
    const res = await createJob({ type: 'skills.reindex' }, {}, first);
    await first.app.close();
    const second = await startTestServer({}, { dataDir });
    try {
      const done = await pollUntilFinal(second, String(res.headers.location));
      expect(done.status).toBe('completed');
    } finally {
      await second.close();
    }
  });
});
