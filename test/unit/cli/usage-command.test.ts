import { describe, expect, it } from 'vitest';
import { describeUsage } from '../../../cli/commands/usage.ts';
import type { Usage } from '../../../cli/sdk/client.ts';

const usage: Usage = {
  period: '2026-11',
  periodStart: '2026-11-01T00:00:00.000Z',
  periodEnd: '2026-12-01T00:00:00.000Z',
  plan: 'starter',
  allowanceCredits: 1000,
  usedCredits: 1200.5,
  remainingCredits: 0,
  projectedCredits: 1500,
  projectedOverageCredits: 500,
  projectedOverageCents: 2000,
  offices: [{ officeId: 'acme', usedCredits: 1200.5 }],
};

describe('describeUsage', () => {
  it('prints the period, the allowance used, the projected overage with its price, and each office', () => {
    expect(describeUsage(usage)).toEqual([
      'period: 2026-11 (2026-11-01 to 2026-12-01, UTC)',
      'plan: starter',
      'used: 1,200.5 of 1,000 credits (0 left)',
      'projected: 1,500 credits, 500 over the allowance, $20.00',
      '  acme  1,200.5',
    ]);
  });

  it('says the projection stays within the allowance, and names a missing plan', () => {
    const within = {
      ...usage,
      plan: null,
      projectedOverageCredits: 0,
      projectedOverageCents: null,
      offices: [],
    };
    expect(describeUsage(within)).toContain('plan: (none: nothing included)');
    expect(describeUsage(within)).toContain('projected: 1,500 credits, within the allowance');
  });

  it('says when nothing is metered for the credential', () => {
    expect(describeUsage(null)[0]).toMatch(/^No metered usage/);
  });
});
