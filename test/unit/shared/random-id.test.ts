import { describe, expect, it } from 'vitest';
import { randomHex, randomId } from '../../../api/shared/random-id.ts';

describe('random ids from the pooled generator', () => {
  it('hands out distinct values across many refills of the pool', () => {
    // 16 bytes each: 2,000 of them span several 4 KiB refills.
    const seen = new Set(Array.from({ length: 2000 }, () => randomHex(16)));
    expect(seen.size).toBe(2000);
    for (const hex of seen) expect(hex).toMatch(/^[0-9a-f]{32}$/);
  });

  it('mixes sizes without handing out a byte twice', () => {
    const ids = Array.from({ length: 500 }, (_, i) => (i % 2 ? randomId('mem') : randomHex(24)));
    expect(new Set(ids).size).toBe(500);
    expect(ids[1]).toMatch(/^mem_[a-z2-7]{24}$/);
  });
});
