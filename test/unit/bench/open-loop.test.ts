import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openLoop, openLoopInChild } from '../../bench/open-loop.ts';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  key: string | undefined;
  body: string;
}

let server: Server | undefined;

async function serve(status: (req: IncomingMessage) => number): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      seen.push({ method: req.method, url: req.url, key: typeof key === 'string' ? key : undefined, body });
      res.statusCode = status(req);
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('open-loop load', () => {
  it('sends rate × seconds requests, the paths in turn, each with its own key, and times every answer', async () => {
    const { origin, seen } = await serve(() => 201);
    const f = await openLoop({
      origin,
      method: 'POST',
      paths: ['/a', '/b', '/c'],
      body: '{"x":1}',
      headers: { 'content-type': 'application/json' },
      idempotencyKeyPrefix: 'run',
      rate: 100,
      seconds: 0.5,
      connections: 4,
    });
    expect(f.sent).toBe(50);
    expect(seen).toHaveLength(50);
    expect(seen.every((s) => s.method === 'POST' && s.body === '{"x":1}')).toBe(true);
    expect(seen.map((s) => s.url).slice(0, 3)).toEqual(['/a', '/b', '/c']);
    expect(new Set(seen.map((s) => s.key)).size).toBe(50);
    expect(seen.map((s) => s.key)).toContain('run-49');
    expect(f.p50).toBeGreaterThan(0);
    expect(f.p99).toBeGreaterThanOrEqual(f.p50);
    expect(f.max).toBeGreaterThanOrEqual(f.p99);
  });

  it('refuses to report figures when any answer is not 2xx', async () => {
    const { origin } = await serve((req) => (req.url === '/b' ? 500 : 200));
    await expect(
      openLoop({ origin, method: 'GET', paths: ['/a', '/b'], rate: 50, seconds: 0.2, connections: 2 }),
    ).rejects.toThrow(/5 of 10 requests failed \(status 500\)/);
  });

  it('runs in a child process of its own and reports the same figures', async () => {
    const { origin, seen } = await serve(() => 200);
    const f = await openLoopInChild({
      origin,
      method: 'GET',
      paths: ['/x'],
      rate: 40,
      seconds: 0.5,
      connections: 2,
      startAt: Date.now() + 200,
      nice: 5,
    });
    expect(f.sent).toBe(20);
    expect(seen).toHaveLength(20);
    expect(seen.every((s) => s.key === undefined)).toBe(true);
  });
});
