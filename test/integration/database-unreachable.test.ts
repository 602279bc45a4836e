// A database that stops answering fails requests fast with 503 in each surface's format, never 500 and
// never naming the database: PostgreSQL that accepts connections but never replies, or whose port is
// closed, and SQLite locked by another writer past its busy timeout.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../api/app-storage.ts';
import type { StorageTarget } from '../../api/storage/open-database.ts';
import { PostgresDriver } from '../../api/storage/postgres-driver.ts';
import { acp, planLine } from '../support/checkout.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { postgresTarget, sqliteTarget } from '../support/storage-targets.ts';

/** A TCP relay to PostgreSQL that can turn into a black hole (accepts, never answers) or a closed port. */
class Relay {
  mode: 'pass' | 'black hole' = 'pass';
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  port = 0;

  constructor(to: { host: string; port: number }) {
    this.server = createServer((client) => {
      this.track(client);
      if (this.mode === 'black hole') return;
      const upstream = this.track(connect(to.port, to.host));
      client.pipe(upstream).pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
  }

  private track(s: Socket): Socket {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    return s;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  /** Drops every open connection; new ones are held without a reply. */
  blackHole(): void {
    this.mode = 'black hole';
    for (const s of this.sockets) s.destroy();
  }

  /** Stops listening: new connections are refused. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('PostgreSQL that never answers', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let port = 0;
  beforeAll(async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('fails the query once the connect timeout is over', async () => {
    const driver = new PostgresDriver({
      url: `postgres://colony@127.0.0.1:${port}/colony`,
      connectTimeoutMs: 300,
    });
    const started = performance.now();
    await expect(driver.query('SELECT 1')).rejects.toThrow(/not reachable/i);
    // A bound on a failure mode (without it, the query never settles), not a performance figure.
    expect(performance.now() - started).toBeLessThan(3_000);
    await driver.close();
  });
});

// What the tests may not find in an answer: the database's address, port or driver wording.
function expectNoLeak(body: string, port: number) {
  expect(body).not.toMatch(/127\.0\.0\.1|localhost|postgres:|ECONN|timeout exceeded|database is locked/i);
  expect(body).not.toContain(String(port));
}

async function expect503(app: FastifyInstance, port: number) {
  const read = await app.inject({ url: '/api/v1/me', headers: { authorization: 'Bearer cly_nope' } });
  expect(read.statusCode, read.body).toBe(503);
  expect(read.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(read.json()).toMatchObject({ status: 503, type: expect.stringMatching(/service_unavailable$/) });
  expect(read.headers['retry-after']).toBe('5');
  expectNoLeak(read.body, port);
  await expectAcp503(app, port);
  await expectMcp503(app, port);
}

/** A tool call that reads the database answers 503 with a JSON-RPC error, not a tool result. */
async function expectMcp503(app: FastifyInstance, port: number) {
  const call = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_skills', arguments: {} } },
  });
  expect(call.statusCode, call.body).toBe(503);
  expect(call.headers['retry-after']).toBe('5');
  expect(call.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: expect.any(Number) } });
  expectNoLeak(call.body, port);
}

async function expectAcp503(app: FastifyInstance, port: number) {
  const created = await acp(app, 'POST', '/checkout_sessions', { line_items: [planLine()] });
  expect(created.statusCode, created.body).toBe(503);
  expect(created.json()).toMatchObject({ type: 'service_unavailable', code: 'service_unavailable' });
  expect(created.headers['retry-after']).toBe('5');
  expectNoLeak(created.body, port);
}

describe('Colony on a PostgreSQL that goes away', () => {
  let relay: Relay;
  let s: TestServer;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const made = await postgresTarget.create();
    dispose = made.dispose;
    const real = made.target as Extract<StorageTarget, { kind: 'postgres' }>;
    const url = new URL(real.url);
    relay = new Relay({ host: url.hostname, port: Number(url.port || 5432) });
    await relay.listen();
    url.hostname = '127.0.0.1';
    url.port = String(relay.port);
    const storage = await openStorage({ ...real, url: url.toString(), connectTimeoutMs: 500 });
    s = await startTestServer({ COLONY_CHECKOUT_RATE_LIMIT: '10000' }, { storage, runJobs: false });
    dispose = async () => {
      await s.close();
      await storage.close();
      await made.dispose();
    };
  });
  afterAll(async () => {
    await relay.close().catch(() => {});
    await dispose();
  });

  it('answers while the database is there', async () => {
    const created = await acp(s.app, 'POST', '/checkout_sessions', { line_items: [planLine()] });
    expect(created.statusCode, created.body).toBe(201);
  });

  it('answers 503 within the connect timeout when the database stops replying', async () => {
    relay.blackHole();
    const started = performance.now();
    await expect503(s.app, relay.port);
    // A bound on a failure mode: without one, the requests would hang; two waits of 0.5 s each.
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('answers 503 when the database port is closed', async () => {
    await relay.close();
    await expect503(s.app, relay.port);
  });
});

describe('Colony on an SQLite file another writer holds', () => {
  let s: TestServer;
  let holder: DatabaseSync;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const made = await sqliteTarget.create();
    const storage = await openStorage(made.target);
    s = await startTestServer({ COLONY_CHECKOUT_RATE_LIMIT: '10000' }, { storage, runJobs: false });
    holder = new DatabaseSync((made.target as Extract<StorageTarget, { kind: 'sqlite' }>).file);
    dispose = async () => {
      await s.close();
      await storage.close();
      await made.dispose();
    };
  });
  afterEach(() => {
    if (holder.isTransaction) holder.exec('ROLLBACK');
  });
  afterAll(async () => {
    holder.close();
    await dispose();
  });

  it('answers a write 503 once the busy timeout is over', async () => {
    holder.exec('BEGIN EXCLUSIVE');
    await expectAcp503(s.app, 0);
  });
});
