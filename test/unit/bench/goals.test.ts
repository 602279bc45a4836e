import { describe, expect, it } from 'vitest';
import { allMet, atLeast, atMost, type BenchOutcome, summaryTable } from '../../bench/goals.ts';

describe('atLeast', () => {
  it.each([
    [0.9, 0.85, true],
    [0.85, 0.85, true],
    [0.849, 0.85, false],
    [0, 0.85, false],
    [Number.NaN, 0.85, false],
    [Number.POSITIVE_INFINITY, 0.85, true],
  ])('measured %s against at least %s is met: %s', (measured, goal, met) => {
    expect(atLeast('f', measured, goal, '×').met).toBe(met);
  });

  it('keeps the figure, both numbers, the direction and the unit', () => {
    expect(atLeast('reads', 0.9, 0.8, '× bare')).toEqual({
      figure: 'reads',
      measured: 0.9,
      goal: 0.8,
      direction: 'at least',
      unit: '× bare',
      met: true,
    });
  });
});

describe('atMost', () => {
  it.each([
    [1.2, 1.5, true],
    [1.5, 1.5, true],
    [1.51, 1.5, false],
    [0, 0, true],
    [1, 0, false],
    [Number.NaN, 20, false],
    [-1, 0, true],
  ])('measured %s against at most %s is met: %s', (measured, goal, met) => {
    expect(atMost('f', measured, goal, 's').met).toBe(met);
  });
});

describe('allMet', () => {
  const met = atLeast('a', 1, 0.5, '×');
  const missed = atMost('b', 2, 1, 's');

  it('is true only when every row of every bench is met', () => {
    expect(allMet({ one: [met], two: [met, met] })).toBe(true);
    expect(allMet({ one: [met], two: [met, missed] })).toBe(false);
  });

  it('does not count a skipped bench against the run, nor for it', () => {
    expect(allMet({ one: [met], cluster: 'skipped' })).toBe(true);
    expect(allMet({ one: [missed], cluster: 'skipped' })).toBe(false);
  });

  it('fails a bench that reported no figure at all', () => {
    expect(allMet({ one: [met], empty: [] })).toBe(false);
  });

  it('fails a bench whose figure could not be measured (NaN)', () => {
    expect(allMet({ one: [atMost('install', Number.NaN, 90, 's')] })).toBe(false);
  });
});

describe('summaryTable', () => {
  const lines = (outcomes: Record<string, BenchOutcome>) => summaryTable(outcomes).split('\n');

  it('is a markdown table with one line per figure, its goal and whether it is met', () => {
    const table = lines({
      reads: [
        atLeast('pricing, warn', 0.912, 0.8, '× bare route'),
        atLeast('pricing, info', 0.5, 0.85, '× warn'),
      ],
    });
    expect(table.slice(0, 2)).toEqual([
      '| bench | figure | measured | goal | met |',
      '|---|---|---|---|---|',
    ]);
    expect(table[2]).toBe('| reads | pricing, warn | 0.912 × bare route | at least 0.800 | met |');
    expect(table[3]).toBe('| reads | pricing, info | 0.500 × warn | at least 0.850 | NOT met |');
    expect(table).toHaveLength(4);
  });

  it('shows integers as they are, large numbers without decimals and others with two', () => {
    const table = lines({
      b: [
        atMost('writes', 0, 0, 'writes'),
        atMost('rss', 312.4567, 600, 'MiB'),
        atMost('ratio', 1.23456, 1.5, '×'),
      ],
    });
    expect(table[2]).toContain('| 0 writes | at most 0 | met |');
    expect(table[3]).toContain('| 312 MiB | at most 600 | met |');
    expect(table[4]).toContain('| 1.23 × | at most 1.50 | met |');
  });

  it('names skipped benches and benches without figures, the latter as not met', () => {
    const table = lines({ cluster: 'skipped', empty: [] });
    expect(table[2]).toBe('| cluster | (skipped) | | | |');
    expect(table[3]).toBe('| empty | (no figures) | | | no |');
  });

  it('shows an unmeasured figure as NaN, not met', () => {
    expect(lines({ n: [atMost('install (failed)', Number.NaN, 90, 's')] })[2]).toBe(
      '| n | install (failed) | NaN s | at most 90 | NOT met |',
    );
  });
});
