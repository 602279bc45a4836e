// Three real API replicas over one PostgreSQL schema and one private Redis, behind a round-robin proxy
// that appends X-Forwarded-For (COLONY_TRUST_PROXY=1, as the chart's Ingress): the scale-out items hold
// together. One poller leader, shared budgets (counted in sliding windows), a Redis outage, sign-in
// throttling, idempotency, UCP profile fetches and one replica leaving. PostgreSQL only: replicas share a database server, never a SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { loadConfig } from '../../api/config.ts';
import { buildServer } from '../../api/server.ts';
import { requestHash } from '../../api/shared/canonical-json.ts';
import { PollerGate } from '../../api/shared/poller-gate.ts';
import {
  type AgentProfileServer,
  startAgentProfileServer,
  ucpAgent,
} from '../conformance/agent-profile-server.ts';
import { planLine } from '../support/checkout.ts';
import { eventually } from '../support/eventually.ts';
import { type ForwardingProxy, requestFrom, startForwardingProxy } from '../support/forwarding-proxy.ts';
import { type PrivateRedis, startPrivateRedis } from '../support/redis-server.ts';
import { freePort } from '../support/server.ts';
import { postgresTarget } from '../support/storage-targets.ts';

const REPLICAS = 3;
const LIMIT = 4;
const WINDOW_MS = 60_000;
// A bound on a failure mode (a client that queued commands for about 15 s), not a performance figure.
const ANSWER_BOUND_MS = 1_000;
const PASSWORD = 'correct horse battery staple';

interface Replica {
  app: Awaited<ReturnType<typeof buildServer>>;
  storage: Storage;
  dataDir: string;
  port: number;
}

describe('many replicas behind one proxy, over one PostgreSQL and one Redis', () => {
  let redis: PrivateRedis;
  let agents: AgentProfileServer;
  let proxy: ForwardingProxy;
  let dispose: () => Promise<void>;
  const replicas: Replica[] = [];
  // One clock for every replica, inside one rate-limit window unless a test moves it.
  const clock = { now: Math.ceil(Date.now() / WINDOW_MS) * WINDOW_MS + 1_000 };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    agents = await startAgentProfileServer();
    const made = await postgresTarget.create();
    dispose = made.dispose;
    const proxyPort = await freePort();
    const env = {
      COLONY_BASE_URL: `http://127.0.0.1:${proxyPort}`,
      LOG_LEVEL: 'silent',
      COLONY_TRUST_PROXY: '1',
      COLONY_RATE_LIMIT_STORE: 'redis',
      REDIS_URL: redis.url,
      COLONY_API_RATE_LIMIT: String(LIMIT),
      COLONY_CHECKOUT_RATE_LIMIT: '10000',
      COLONY_SIGNIN_FREE_FAILURES: '3',
      COLONY_UCP_ALLOW_INSECURE_PROFILES: 'true',
      // The sliding window counts in the shared store too: the budget stays exact across replicas.
      COLONY_RATE_LIMIT_ALGORITHM: 'sliding',
    };
    const upstreams: string[] = [];
    for (let i = 0; i < REPLICAS; i++) {
      // Each replica opens its own pool on the one schema, as separate processes do.
      const storage = await openStorage(made.target);
      const dataDir = mkdtempSync(join(tmpdir(), 'colony-replica-'));
      const config = loadConfig({ ...env, COLONY_DATA_DIR: dataDir });
      // The first replica holds the poller Lease (the election itself: poller-election.test.ts).
      const pollerGate = new PollerGate(i === 0);
      const app = await buildServer(config, { storage, now: () => clock.now, runJobs: false, pollerGate });
      const port = await freePort();
      await app.listen({ port, host: '127.0.0.1' });
      replicas.push({ app, storage, dataDir, port });
      upstreams.push(`http://127.0.0.1:${port}`);
    }
    proxy = await startForwardingProxy(upstreams);
  });
  afterAll(async () => {
    await proxy?.close();
    for (const r of replicas) {
      await r.app.close();
      await r.storage.close();
      rmSync(r.dataDir, { recursive: true, force: true });
    }
    await dispose?.();
    await agents?.close();
    await redis?.stop();
  });

  /** `count` reads of the public API from one client address, through the proxy: statuses and slowest. */
  async function reads(from: string, count: number): Promise<{ statuses: number[]; slowestMs: number }> {
    const statuses: number[] = [];
    let slowestMs = 0;
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      statuses.push((await requestFrom(from, `${proxy.url}/api/v1/pricing`)).status);
      slowestMs = Math.max(slowestMs, performance.now() - started);
    }
    return { statuses, slowestMs };
  }
  const enforced = [200, 200, 200, 200, 429, 429];
  const storeStatuses = () =>
    Promise.all(
      replicas.map(async (r) => {
        const body = (await r.app.inject({ url: '/api/v1/status' })).json() as {
          services: { name: string; status: string }[];
        };
        return body.services.find((x) => x.name === 'rate-limit-store')?.status;
      }),
    );
  const readiness = () =>
    Promise.all(replicas.map(async (r) => (await r.app.inject({ url: '/readyz' })).statusCode));

  it('tells the replica that runs the cluster-wide pollers from the others', async () => {
    const leaders = await Promise.all(
      replicas.map(async (r) => {
        const text = (await r.app.inject({ url: '/metrics' })).body;
        return /^colony_poller_leader (\d)/m.exec(text)?.[1];
      }),
    );
    expect(leaders).toEqual(['1', '0', '0']);
  });

  it('keeps one exact budget per client address across the replicas', async () => {
    // Six requests round-robin over three replicas: each replica counted some, the store counted all.
    expect((await reads('127.0.0.2', LIMIT + 2)).statuses).toEqual(enforced);
    expect((await reads('127.0.0.3', LIMIT + 2)).statuses).toEqual(enforced);
  });

  it('answers every request at once while Redis is down, says so on every replica, stays ready', async () => {
    await redis.kill();
    const { statuses, slowestMs } = await reads('127.0.0.4', LIMIT + 2);
    expect(statuses).toEqual(Array(LIMIT + 2).fill(200));
    expect(slowestMs).toBeLessThan(ANSWER_BOUND_MS);
    expect(await storeStatuses()).toEqual(Array(REPLICAS).fill('degraded'));
    expect(await readiness()).toEqual(Array(REPLICAS).fill(200));

    await redis.restart();
    await eventually(async () => (await storeStatuses()).every((s) => s === 'operational'));
    // The restarted Redis is empty: a new client address is counted from zero, exactly.
    expect((await reads('127.0.0.5', LIMIT + 2)).statuses).toEqual(enforced);
  });

  /** A browser at one client address, through the proxy: each request may reach another replica. */
  function browserAt(from: string) {
    const cookies = new Map<string, string>();
    const send = async (method: 'GET' | 'POST', path: string, form?: Record<string, string>) => {
      const headers: Record<string, string> = {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      };
      const body = form
        ? new URLSearchParams({ ...form, _csrf: cookies.get('colony_csrf') ?? '' }).toString()
        : undefined;
      const res = await requestFrom(from, `${proxy.url}${path}`, { method, headers, body });
      for (const line of [res.headers['set-cookie'] ?? []].flat()) {
        const [pair = ''] = line.split(';');
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      return res;
    };
    return {
      async submit(path: string, form: Record<string, string>) {
        await send('GET', path);
        return send('POST', path, form);
      },
    };
  }

  it("lets alice sign in from her address while an attacker's failures for her are throttled", async () => {
    const email = 'alice@replicas.test';
    const signup = await browserAt('127.0.0.6').submit('/signup', {
      name: 'Alice',
      email,
      password: PASSWORD,
    });
    expect(signup.status).toBe(303);

    const attacker = browserAt('127.0.0.7');
    const codes: number[] = [];
    let refused: Awaited<ReturnType<typeof attacker.submit>> | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await attacker.submit('/signin', { email, password: 'a wrong guess' });
      codes.push(res.status);
      refused = res;
    }
    // Three free failures spread over the replicas, then a wait the whole deployment enforces.
    expect(codes).toEqual([401, 401, 401, 429]);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);

    const own = await browserAt('127.0.0.8').submit('/signin', { email, password: PASSWORD });
    expect(own.status).toBe(303);
  });

  /** An ACP create through the proxy from one client address. */
  const create = (key: string, from = '127.0.0.9') =>
    requestFrom(from, `${proxy.url}/checkout_sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ line_items: [planLine()] }),
    });
  const sessions = () => replicas[0]?.storage.checkoutSessions.count() ?? Promise.resolve(-1);

  it('creates one session for one Idempotency-Key sent to every replica at once', async () => {
    const before = await sessions();
    const answers = await Promise.all(Array.from({ length: 12 }, () => create('many-replicas-1')));
    expect(await sessions()).toBe(before + 1);
    const created = answers.filter((a) => a.status === 201);
    expect(new Set(created.map((a) => a.body)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
  });

  it("counts Retry-After down from the first request's lock on every replica", async () => {
    const storage = replicas[0]?.storage;
    if (!storage) throw new Error('no replica');
    const body = { line_items: [planLine()] };
    // A first request that claimed the key on some replica and is still running.
    await storage.checkoutIdempotency.claim({
      scope: 'acp:create:',
      key: 'many-replicas-2',
      fingerprint: requestHash({ variant: '2026-04-17', body }),
      now: clock.now,
      lockMs: 60_000,
      ttlMs: 24 * 60 * 60_000,
    });
    clock.now += 45_500;
    const answers = [];
    for (let i = 0; i < REPLICAS; i++) answers.push(await create('many-replicas-2'));
    expect(answers.map((a) => [a.status, a.headers['retry-after']])).toEqual(
      Array(REPLICAS).fill([409, '15']),
    );
  });

  it('fetches a UCP agent profile at most once per replica for concurrent creates', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        requestFrom('127.0.0.10', `${proxy.url}/ucp/v1/checkout-sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'ucp-agent': ucpAgent(agents, '/agent/2026-01-23') },
          body: JSON.stringify({ line_items: [planLine()] }),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(201));
    expect(agents.hits.get('/agent/2026-01-23')).toBeLessThanOrEqual(REPLICAS);
  });

  /**
   * Holds one request open on a replica's own port (its body still coming), starts that replica's
   * shutdown, runs `meanwhile`, then sends one more request on the held connection: what a request that
   * reaches a closing replica gets. Returns that last answer's head and body.
   */
  async function askWhileClosing(r: Replica, meanwhile: () => Promise<void>) {
    const socket = connect(r.port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => {
      received += d.toString('latin1');
    });
    const ended = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    const held = 'Content-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n{';
    socket.write(`POST /api/v1/nope HTTP/1.1\r\nHost: colony\r\n${held}`);
    await eventually(async () => received.startsWith('HTTP/1.1 100'));
    const closed = r.app.close();
    await eventually(async () => !r.app.server.listening);
    await meanwhile();
    socket.write('}GET /api/v1/pricing HTTP/1.1\r\nHost: colony\r\n\r\n');
    await ended;
    await closed;
    const last = received.slice(received.lastIndexOf('HTTP/1.1 '));
    const split = last.indexOf('\r\n\r\n');
    return { head: last.slice(0, split).toLowerCase(), body: last.slice(split + 4) };
  }

  it('answers 503 shutting_down on a closing replica while the others serve through the proxy', async () => {
    const leaving = replicas.at(-1);
    if (!leaving) throw new Error('no replica');
    let statuses: number[] = [];
    const { head, body } = await askWhileClosing(leaving, async () => {
      // The proxy moves on from the replica that stopped listening; the others answer every request.
      statuses = (await reads('127.0.0.11', LIMIT + 2)).statuses;
    });
    expect(statuses).toEqual(enforced);
    expect(head).toMatch(/^http\/1\.1 503 /);
    expect(head).toContain('content-type: application/problem+json');
    expect(head).toMatch(/\r\nretry-after: \d+\r\n/);
    expect(JSON.parse(body)).toMatchObject({ status: 503, code: 'shutting_down' });
  });
});
