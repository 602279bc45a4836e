// The credential cache: what it reuses, for how long, and how a revocation here or elsewhere ends it.
import { describe, expect, it } from 'vitest';
import { CredentialCache } from '../../../api/identity/credential-cache.ts';

function setup(opts: { ttlMs?: number; checkEveryMs?: number } = {}) {
  let clock = 1_000_000;
  const shared = { value: 'm0' as string | undefined, reads: 0, renewals: 0 };
  const cache = new CredentialCache({
    ttlMs: opts.ttlMs ?? 60_000,
    checkEveryMs: opts.checkEveryMs ?? 1_000,
    marker: {
      read: async () => {
        shared.reads++;
        return shared.value;
      },
      renew: async () => {
        shared.renewals++;
        shared.value = `m${shared.renewals}-local`;
        return shared.value;
      },
    },
    now: () => clock,
  });
  let loads = 0;
  const load = (value: string, expiresAt?: number) => async () => {
    loads++;
    return { value, expiresAt: expiresAt ?? null };
  };
  return {
    cache,
    shared,
    load,
    loads: () => loads,
    tick: (ms: number) => {
      clock += ms;
    },
    now: () => clock,
  };
}

describe('CredentialCache', () => {
  it('loads a key once and reuses it until the TTL passes', async () => {
    const t = setup({ ttlMs: 5_000 });
    expect(await t.cache.through('k', t.load('a'))).toBe('a');
    expect(await t.cache.through('k', t.load('b'))).toBe('a');
    expect(t.loads()).toBe(1);
    t.tick(5_000);
    expect(await t.cache.through('k', t.load('c'))).toBe('c');
    expect(t.loads()).toBe(2);
  });

  it('never serves a value past its own expiry, whatever the TTL', async () => {
    const t = setup();
    await t.cache.through('k', t.load('a', t.now() + 100));
    t.tick(100);
    expect(await t.cache.through('k', t.load('b'))).toBe('b');
  });

  it('does not remember unknown credentials', async () => {
    const t = setup();
    expect(await t.cache.through('k', async () => undefined)).toBeUndefined();
    expect(await t.cache.through('k', t.load('a'))).toBe('a');
  });

  it('forgets everything at once on a local revocation, and renews the shared marker', async () => {
    const t = setup();
    await t.cache.through('k', t.load('a'));
    await t.cache.revoked();
    expect(t.shared.renewals).toBe(1);
    expect(await t.cache.through('k', t.load('b'))).toBe('b');
  });

  it('forgets everything when another replica renewed the marker, at its next check', async () => {
    const t = setup({ checkEveryMs: 1_000 });
    await t.cache.through('k', t.load('a'));
    t.shared.value = 'renewed-elsewhere';
    t.tick(999);
    expect(await t.cache.through('k', t.load('b'))).toBe('a');
    t.tick(1);
    expect(await t.cache.through('k', t.load('c'))).toBe('c');
  });

  it('reads the marker at most once per interval, however many requests ask', async () => {
    const t = setup({ checkEveryMs: 1_000 });
    await Promise.all(Array.from({ length: 50 }, () => t.cache.through('k', t.load('a'))));
    const reads = t.shared.reads;
    await Promise.all(Array.from({ length: 50 }, () => t.cache.through('k', t.load('a'))));
    expect(reads).toBe(1);
    expect(t.shared.reads).toBe(1);
  });

  it('does not store an answer loaded before a revocation that landed while it was loading', async () => {
    const t = setup();
    let release: (() => void) | undefined;
    const slow = t.cache.through('k', async () => {
      await new Promise<void>((r) => {
        release = r;
      });
      return { value: 'stale' };
    });
    while (!release) await new Promise((r) => setImmediate(r));
    await t.cache.revoked();
    release();
    expect(await slow).toBe('stale');
    expect(await t.cache.through('k', t.load('fresh'))).toBe('fresh');
  });

  it('with a TTL of 0 loads every time and touches no marker', async () => {
    const t = setup({ ttlMs: 0 });
    await t.cache.through('k', t.load('a'));
    expect(await t.cache.through('k', t.load('b'))).toBe('b');
    await t.cache.revoked();
    expect(t.shared.reads + t.shared.renewals).toBe(0);
  });

  describe('peek', () => {
    it('answers a remembered value at once while the marker was read within the interval', async () => {
      const t = setup();
      expect(t.cache.peek('k')).toBeUndefined();
      await t.cache.through('k', t.load('a'));
      expect(t.cache.peek('k')).toBe('a');
      expect(t.loads()).toBe(1);
    });

    it('answers nothing once the marker check is due, so the caller goes through the check', async () => {
      const t = setup({ checkEveryMs: 1_000 });
      await t.cache.through('k', t.load('a'));
      t.tick(1_000);
      expect(t.cache.peek('k')).toBeUndefined();
      t.shared.value = 'elsewhere';
      expect(await t.cache.through('k', t.load('b'))).toBe('b');
      expect(t.cache.peek('k')).toBe('b');
    });

    it('answers nothing after a local revocation, nor past the TTL or the value expiry', async () => {
      const t = setup({ ttlMs: 5_000, checkEveryMs: 60_000 });
      await t.cache.through('k', t.load('a'));
      await t.cache.revoked();
      expect(t.cache.peek('k')).toBeUndefined();
      await t.cache.through('k', t.load('b', t.now() + 100));
      t.tick(100);
      expect(t.cache.peek('k')).toBeUndefined();
      await t.cache.through('k', t.load('c'));
      t.tick(5_000);
      expect(t.cache.peek('k')).toBeUndefined();
    });

    it('answers nothing with a TTL of 0', async () => {
      const t = setup({ ttlMs: 0 });
      await t.cache.through('k', t.load('a'));
      expect(t.cache.peek('k')).toBeUndefined();
    });
  });
});
