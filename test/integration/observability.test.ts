// Health, readiness, metrics, ETags, and the server process itself: start, serve, shut down on SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pricingSchema, skillsPageSchema } from '../../api/public/schemas.ts';
import { freePort } from '../support/controller-process.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { postgresUrl } from '../support/storage-targets.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('operational endpoints', () => {
  it('/healthz answers while the process runs', async () => {
    expect((await s.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
  });

  it('/readyz checks the database', async () => {
    const body = (await s.app.inject({ url: '/readyz' })).json();
    expect(body.status).toBe('ok');
    expect(body.database.kind).toBe('sqlite');
  });

  it('/metrics exposes request timings by route template in Prometheus format', async () => {
    await s.app.inject({ url: '/api/v1/jobs/job_nope' });
    const res = await s.app.inject({ url: '/metrics' });
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toContain('colony_http_request_duration_seconds_bucket');
    expect(res.body).toMatch(/route="\/api\/v1\/jobs\/:id",status_code="404"/);
    expect(res.body).not.toContain('job_nope');
    expect(res.body).toContain('colony_process_cpu_user_seconds_total');
  });

  it('times each request once: under its own method, and as unmatched when no route took it', async () => {
    const count = async (labels: string) => {
      const text = (await s.app.inject({ url: '/metrics' })).body;
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`colony_http_request_duration_seconds_count{${labels}}`));
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const head = 'method="HEAD",route="/api/v1/pricing",status_code="200"';
    const get = 'method="GET",route="/api/v1/pricing",status_code="200"';
    const lost = 'method="GET",route="unmatched",status_code="404"';
    const before = [await count(head), await count(get), await count(lost)];
    await s.app.inject({ method: 'HEAD', url: '/api/v1/pricing' });
    await s.app.inject({ url: '/api/v1/pricing' });
    await s.app.inject({ url: '/api/v1/pricing' });
    await s.app.inject({ url: '/no/such/place' });
    expect([await count(head), await count(get), await count(lost)]).toEqual([
      (before[0] ?? 0) + 1,
      (before[1] ?? 0) + 2,
      (before[2] ?? 0) + 1,
    ]);
  });
});

describe('cached representations', () => {
  it('serves pricing and skills pages that match their schemas, with ETags and 304s', async () => {
    for (const [url, schema] of [
      ['/api/v1/pricing', pricingSchema],
      ['/api/v1/skills?limit=3', skillsPageSchema],
    ] as const) {
      const first = await s.app.inject({ url });
      expect(() => schema.parse(first.json())).not.toThrow();
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await s.app.inject({ url, headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers['x-ratelimit-limit']).toBeDefined();
      const stale = await s.app.inject({ url, headers: { 'if-none-match': '"other"' } });
      expect(stale.statusCode).toBe(200);
    }
  });
});

describe('the whole server on PostgreSQL', () => {
  it('runs a job to completion with DATABASE_URL set', async () => {
    const pg = await startTestServer({ DATABASE_URL: postgresUrl() });
    try {
      const created = await pg.app.inject({
        method: 'POST',
        url: '/api/v1/jobs',
        payload: { type: 'status.report' },
      });
      const path = new URL(String(created.headers.location)).pathname;
      let job = created.json();
      for (let i = 0; i < 200 && job.status !== 'completed'; i++) {
        await new Promise((r) => setTimeout(r, 25));
        job = (await pg.app.inject({ url: path })).json();
      }
      expect(job.status).toBe('completed');
      expect(job.result.services.find((x: { name: string }) => x.name === 'database').detail).toMatch(
        /^postgres/,
      );
    } finally {
      await pg.close();
    }
  });
});

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** With COLONY_MANAGER_PORT the office-manager API answers there only, in its own problem+json. */
async function expectManagerApiOnItsOwnPort(port: number, managerPort: number): Promise<void> {
  const path = '/api/v1/offices/acme/integrations/openai/secret';
  const post = (p: number) =>
    fetch(`http://127.0.0.1:${p}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: { OPENAI_API_KEY: 'sk-x' } }),
    });
  const onPublic = await post(port);
  expect(onPublic.status).toBe(404);
  expect(onPublic.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const onManager = await post(managerPort);
  expect(onManager.status).toBe(401);
  expect(onManager.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(onManager.headers.get('www-authenticate')).toMatch(/^Bearer /);
  expect(onManager.headers.get('x-ratelimit-limit')).not.toBeNull();
  // The manager listener serves nothing else.
  expect((await fetch(`http://127.0.0.1:${managerPort}/api/v1/pricing`)).status).toBe(404);
}

describe('the server process (main/api.ts)', () => {
  const main = new URL('../../main/api.ts', import.meta.url).pathname;

  it('serves on its port, keeps secrets out of its logs and exits 0 after SIGTERM', async () => {
    const port = await freePort();
    const managerPort = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'colony-proc-'));
    const child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        // This test is about the API process alone: no cluster, no controller.
        KUBECONFIG: '',
        COLONY_RUN_CONTROLLER: 'false',
        PORT: String(port),
        COLONY_MANAGER_PORT: String(managerPort),
        HOST: '127.0.0.1',
        COLONY_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout?.on('data', (d) => {
      logs += d;
    });
    const exited = exitOf(child);
    try {
      let answer: Response | undefined;
      for (let i = 0; i < 100 && !answer; i++) {
        answer = await fetch(`http://127.0.0.1:${port}/api/v1`).catch(() => undefined);
        if (!answer) await new Promise((r) => setTimeout(r, 100));
      }
      expect(answer?.status).toBe(200);
      await fetch(`http://127.0.0.1:${port}/api/v1/me?access_token=secret-in-url`);
      await expectManagerApiOnItsOwnPort(port, managerPort);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const lines = logs
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.some((l) => l.msg === 'colony api ready')).toBe(true);
      expect(lines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true);
      expect(lines.some((l) => typeof l.requestId === 'string')).toBe(true);
      expect(logs).not.toContain('secret-in-url');
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start on bad configuration, naming the variable, with exit code 78', async () => {
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, PORT: 'not-a-port' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    expect(await exitOf(child)).toBe(78);
    expect(err).toContain('PORT:');
  });
});
