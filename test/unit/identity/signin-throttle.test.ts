// The sign-in throttle's progressive wait, as a table, and its answer when the store is down.
import { describe, expect, it } from 'vitest';
import { delayAfter, SigninThrottle } from '../../../api/identity/accounts/signin-throttle.ts';
import type { CounterStore } from '../../../api/shared/rate-limit/rate-limiter.ts';

describe('delayAfter', () => {
  it.each([
    [0, 0],
    [4, 0],
    [5, 1_000],
    [6, 2_000],
    [7, 4_000],
    [12, 128_000],
    [13, 256_000],
    [14, 300_000],
    [1_000, 300_000],
  ])('after %i wrong passwords (5 free, 300 s cap) waits %i ms', (failures, wait) => {
    expect(delayAfter(failures, 5, 300_000)).toBe(wait);
  });
});

describe('SigninThrottle', () => {
  it('lets the attempt through and reports the error when the store is unreachable', async () => {
    const down: CounterStore = {
      name: 'down',
      hit: () => Promise.reject(new Error('connection refused')),
    };
    const errors: unknown[] = [];
    const throttle = new SigninThrottle({
      store: down,
      freeFailures: 5,
      maxDelayMs: 300_000,
      addressFailuresPerMinute: 10,
      onStoreError: (err) => errors.push(err),
    });
    const admission = await throttle.admit('192.0.2.1', 'owner@example.com');
    expect(admission.allowed).toBe(true);
    expect(errors).toHaveLength(1);
  });
});
