// The guarded shared store: bounded calls, one report per change of state, and a limiter that fails open.
import { describe, expect, it } from 'vitest';
import {
  GuardedCounterStore,
  type SharedCounterStore,
  type StoreHealth,
} from '../../api/shared/rate-limit/guarded-store.ts';
import { RateLimiter } from '../../api/shared/rate-limit/rate-limiter.ts';

/** A store whose answer the test switches: a count, an error, or never. */
function switchable() {
  let mode: 'up' | 'down' | 'stalled' = 'up';
  let count = 0;
  const answer = <T>(value: () => T): Promise<T> => {
    if (mode === 'down') return Promise.reject(new Error('connect ECONNREFUSED'));
    if (mode === 'stalled') return new Promise<T>(() => {});
    return Promise.resolve(value());
  };
  const store: SharedCounterStore = {
    name: 'redis',
    hit: (_key, _start, cost) => answer(() => (count += cost)),
    ping: () => answer(() => undefined),
  };
  return { store, set: (m: typeof mode) => (mode = m) };
}

function guarded() {
  const s = switchable();
  const changes: StoreHealth[] = [];
  const failures: string[] = [];
  const store = new GuardedCounterStore(s.store, {
    timeoutMs: 20,
    onChange: (h) => changes.push(h),
    onFailure: (bucket) => failures.push(bucket),
  });
  const limiter = new RateLimiter({ bucket: 'api', limit: 2, windowMs: 60_000, store });
  return { ...s, store, limiter, changes, failures };
}

describe('GuardedCounterStore with a fail-open limiter', () => {
  it('lets requests through while the store fails, reporting the outage once each way', async () => {
    const g = guarded();
    expect((await g.limiter.consume('a')).allowed).toBe(true);
    g.set('down');
    for (let i = 0; i < 5; i++) expect((await g.limiter.consume('a')).allowed).toBe(true);
    g.set('stalled');
    expect((await g.limiter.consume('a')).allowed).toBe(true);
    expect(g.changes.map((c) => c.up)).toEqual([false]);
    expect(g.changes[0]?.error).toContain('ECONNREFUSED');
    expect(g.failures).toEqual(Array(6).fill('api'));
    g.set('up');
    expect((await g.store.ping()).up).toBe(true);
    expect(g.changes.map((c) => c.up)).toEqual([false, true]);
    expect((await g.limiter.consume('a')).allowed).toBe(true);
    expect((await g.limiter.consume('a')).allowed).toBe(false);
  });

  it('rejects with the store error when the limiter is told not to fail open', async () => {
    const g = guarded();
    const strict = new RateLimiter({
      bucket: 'x',
      limit: 2,
      windowMs: 60_000,
      store: g.store,
      failOpen: false,
    });
    g.set('stalled');
    await expect(strict.consume('a')).rejects.toThrow(/no answer within 20 ms/);
  });
});
