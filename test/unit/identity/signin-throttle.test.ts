// The progressive wait of the sign-in throttle, as a table.
import { describe, expect, it } from 'vitest';
import { delayAfter } from '../../../api/identity/accounts/signin-throttle.ts';

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
