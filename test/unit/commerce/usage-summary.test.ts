import { describe, expect, it } from 'vitest';
import { reportTimestamp } from '../../../api/commerce/usage/usage-reporter.ts';
import { renderUsageSection } from '../../../api/commerce/usage/usage-section.ts';
import { summarizeUsage } from '../../../api/commerce/usage/usage-summary.ts';

const starter = { slug: 'starter', monthlyCredits: 1000, overagePerCreditCents: 4 };
const NOV = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;

describe('summarizeUsage', () => {
  it('adds the offices up against the allowance and projects the pace to the end of the month', () => {
    // 10 days into a 30-day month with 600 credits used: 1,800 projected, 800 over at 4¢.
    const u = summarizeUsage({
      period: '2026-11',
      offices: [
        { officeId: 'a', milliCredits: 400_000 },
        { officeId: 'b', milliCredits: 200_000 },
      ],
      plan: starter,
      now: NOV + 10 * DAY,
    });
    expect(u).toEqual({
      period: '2026-11',
      periodStart: '2026-11-01T00:00:00.000Z',
      periodEnd: '2026-12-01T00:00:00.000Z',
      plan: 'starter',
      allowanceCredits: 1000,
      usedCredits: 600,
      remainingCredits: 400,
      projectedCredits: 1800,
      projectedOverageCredits: 800,
      projectedOverageCents: 3200,
      offices: [
        { officeId: 'a', usedCredits: 400 },
        { officeId: 'b', usedCredits: 200 },
      ],
    });
  });

  it('stays within the allowance at a slow pace, and never projects from less than an hour', () => {
    const slow = summarizeUsage({
      period: '2026-11',
      offices: [{ officeId: 'a', milliCredits: 1500 }],
      plan: starter,
      now: NOV + 60_000,
    });
    // One minute in: projected as if an hour had passed (720 hours in November).
    expect(slow.projectedCredits).toBe(1080);
    expect(slow.projectedOverageCredits).toBe(80);
    expect(slow.projectedOverageCents).toBe(320);
  });

  it('includes nothing without a plan, and prices no overage', () => {
    const u = summarizeUsage({
      period: '2026-11',
      offices: [{ officeId: 'a', milliCredits: 2500 }],
      plan: undefined,
      now: NOV + 15 * DAY,
    });
    expect(u).toMatchObject({
      plan: null,
      allowanceCredits: 0,
      usedCredits: 2.5,
      projectedCredits: 5,
      projectedOverageCents: null,
    });
  });

  it('does not project past a period that has ended', () => {
    const u = summarizeUsage({
      period: '2026-10',
      offices: [{ officeId: 'a', milliCredits: 5_000 }],
      plan: starter,
      now: NOV + DAY,
    });
    expect(u.projectedCredits).toBe(5);
  });
});

describe('renderUsageSection', () => {
  it('shows the credits used and the overage, escaping office ids, and nothing without usage', () => {
    const u = summarizeUsage({
      period: '2026-11',
      offices: [{ officeId: '<x>', milliCredits: 1_200_000 }],
      plan: starter,
      now: NOV + 10 * DAY,
    });
    const html = renderUsageSection(u);
    expect(html).toContain('<span id="usage-used">1,200</span>');
    expect(html).toContain('id="usage-overage"');
    expect(html).toContain('&#60;x&#62;');
    expect(html).not.toContain('<x>');
    expect(renderUsageSection(null)).toBe('');
  });
});

describe('reportTimestamp', () => {
  it('keeps a report written after its period ended inside that period', () => {
    expect(reportTimestamp({ period: '2026-10', createdAt: NOV + 5_000 })).toBe(NOV - 1000);
    expect(reportTimestamp({ period: '2026-11', createdAt: NOV + 5_000 })).toBe(NOV + 5_000);
  });
});
