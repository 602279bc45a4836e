// WorkQueue: de-duplication, one worker per key, delays and backoff.
import { describe, expect, it, vi } from 'vitest';
import { WorkQueue } from '../../../controller/runtime/work-queue.ts';

describe('WorkQueue', () => {
  it('queues a key once however often it is added', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands a key to two workers: a re-add while processing waits for done()', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    expect(q.length).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => {
      second = k;
    });
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done(key ?? '');
    await Promise.resolve();
    expect(second).toBe('a');
  });

  it('hands a key straight to a waiting worker', async () => {
    const q = new WorkQueue();
    const pending = q.get();
    q.add('x');
    expect(await pending).toBe('x');
    expect(q.inFlight).toBe(1);
  });

  it('adds after a delay, keeping the earliest of several delays', () => {
    vi.useFakeTimers();
    try {
      const q = new WorkQueue();
      q.addAfter('a', 200);
      q.addAfter('a', 20);
      q.addAfter('a', 500);
      expect(q.length).toBe(0);
      vi.advanceTimersByTime(60);
      expect(q.length).toBe(1);
      // The later delays were dropped, not left to add the key again.
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(250);
      expect(q.length).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('backs off exponentially per key and forgets on success', () => {
    const q = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 50, burst: 1000 });
    expect([
      q.addRateLimited('a'),
      q.addRateLimited('a'),
      q.addRateLimited('a'),
      q.addRateLimited('a'),
    ]).toEqual([10, 20, 40, 50]);
    expect(q.numRequeues('a')).toBe(4);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    expect(q.addRateLimited('a')).toBe(10);
    q.shutDown();
  });

  it('spreads retries of many keys over the overall budget', () => {
    let t = 0;
    const q = new WorkQueue({ baseDelayMs: 1, qps: 10, burst: 2, now: () => t });
    const delays = ['a', 'b', 'c', 'd'].map((k) => q.addRateLimited(k));
    expect(delays).toEqual([1, 1, 100, 200]);
    t = 1000;
    expect(q.addRateLimited('e')).toBe(1);
    q.shutDown();
  });

  it('releases waiting workers on shut down', async () => {
    const q = new WorkQueue();
    const pending = q.get();
    q.shutDown();
    expect(await pending).toBeUndefined();
    q.add('late');
    expect(await q.get()).toBeUndefined();
  });
});

describe('WorkQueue resync lane', () => {
  it('serves low-priority keys only after every normal key, and promotes one that becomes urgent', async () => {
    const q = new WorkQueue();
    q.add('resync-a', true);
    q.add('resync-b', true);
    q.add('real-1');
    q.add('resync-b'); // a real change to a key that was queued by the resync
    q.add('real-2', true); // queued by a resync, then changed for real just after
    q.add('real-2');
    expect(q.length).toBe(4);
    const order: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) order.push(await q.get());
    expect(order).toEqual(['real-1', 'resync-b', 'real-2', 'resync-a']);
  });
});
