import { describe, expect, it } from 'vitest';
import { describeUsage } from '../../../cli/commands/usage.ts';
import type { Usage } from '../../../cli/sdk/client.ts';
import { cannedAnswers } from './canned-api.ts';

/** The canned API's usage: 1,200.5 credits of a 1,000 allowance, 500 projected over at 4¢. */
const usage = (cannedAnswers.getMe as { usage: Usage }).usage;

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
