import { request as httpRequest } from 'node:http';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AdmissionGate, admitWrites } from '../../../api/shared/write-admission.ts';

describe('AdmissionGate', () => {
  it('admits up to its limit, then the waiters in arrival order as places free', () => {
    const gate = new AdmissionGate(2);
    const order: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) gate.enter(() => order.push(name));
    expect(order).toEqual(['a', 'b']);
    expect([gate.running, gate.queued]).toEqual([2, 2]);
    gate.leave();
    expect(order).toEqual(['a', 'b', 'c']);
    gate.leave();
    gate.leave();
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    expect([gate.running, gate.queued]).toEqual([1, 0]);
    gate.leave();
    expect(gate.running).toBe(0);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new AdmissionGate(0)).toThrow(RangeError);
    expect(() => new AdmissionGate(1.5)).toThrow(RangeError);
  });
});

describe('admitWrites on a real server', () => {
  const apps: ReturnType<typeof Fastify>[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  async function serve(gate: AdmissionGate) {
    const app = Fastify();
    apps.push(app);
    let inside = 0;
    let most = 0;
    const release: (() => void)[] = [];
    admitWrites(app, gate);
    app.post('/w', async () => {
      inside += 1;
      most = Math.max(most, inside);
      await new Promise<void>((resolve) => release.push(resolve));
      inside -= 1;
      return { ok: true };
    });
    app.get('/r', async () => ({ read: true }));
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    return { base, most: () => most, release };
  }

  const post = (base: string, signal?: AbortSignal) =>
    fetch(`${base}/w`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal,
    });

  /** Waits until `n` handlers are running (each pushes its release). */
  async function handlersRunning(release: unknown[], n: number) {
    while (release.length < n) await new Promise((r) => setTimeout(r, 5));
  }

  it('runs at most the limit of writes at once; reads pass the queue', async () => {
    const gate = new AdmissionGate(2);
    const s = await serve(gate);
    const writes = Array.from({ length: 5 }, () => post(s.base));
    await handlersRunning(s.release, 2);
    // The other three arrive when their connections do, which on a busy machine is after the first two.
    while (gate.queued < 3) await new Promise((r) => setTimeout(r, 5));
    expect([gate.running, s.release.length]).toEqual([2, 2]);
    // A read is not held behind the queued writes.
    expect(await (await fetch(`${s.base}/r`)).json()).toEqual({ read: true });
    while (s.release.length > 0 || gate.running > 0) {
      s.release.shift()?.();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(s.most()).toBe(2);
    expect([gate.running, gate.queued]).toEqual([0, 0]);
  });

  it('frees the place of a client that leaves, running or waiting', async () => {
    const gate = new AdmissionGate(1);
    const s = await serve(gate);
    const running = new AbortController();
    const first = post(s.base, running.signal).catch(() => 'aborted');
    await handlersRunning(s.release, 1);
    // A second client queues, then leaves before it is admitted.
    const waiting = httpRequest(`${s.base}/w`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    waiting.on('error', () => {});
    waiting.end('{}');
    while (gate.queued < 1) await new Promise((r) => setTimeout(r, 5));
    waiting.destroy();
    running.abort();
    expect(await first).toBe('aborted');
    // Both places come back: a new write runs and answers. (Whether the leaver's handler ran depends
    // on when the server saw it go; every handler that runs is let through.)
    const next = post(s.base).then((r) => r.status);
    let status: number | undefined;
    while (status === undefined) {
      s.release.shift()?.();
      status = await Promise.race([next, new Promise<undefined>((r) => setTimeout(() => r(undefined), 5))]);
    }
    expect(status).toBe(200);
    while (gate.running > 0) await new Promise((r) => setTimeout(r, 5));
    expect([gate.running, gate.queued]).toEqual([0, 0]);
  });
});
