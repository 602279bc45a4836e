// Pure: an account's credits this period against its plan's allowance, and the overage it is on
// course for if agents keep running as they have so far this period.
import { periodBounds } from '../../../cluster/usage-ledger.ts';
import type { Plan } from '../../domain/pricing/price-list.ts';

export interface OfficeUsage {
  officeId: string;
  /** Thousandths of a credit this period. */
  milliCredits: number;
}

export interface UsageSummary {
  /** The usage period: a UTC calendar month, `YYYY-MM`. */
  period: string;
  periodStart: string;
  periodEnd: string;
  /** The plan whose allowance applies; null without a plan (usage is shown, nothing is included). */
  plan: string | null;
  allowanceCredits: number;
  usedCredits: number;
  remainingCredits: number;
  /** Credits by the end of the period at this period's pace so far. */
  projectedCredits: number;
  projectedOverageCredits: number;
  /** What that overage costs at the plan's rate; null without a plan. */
  projectedOverageCents: number | null;
  offices: { officeId: string; usedCredits: number }[];
}

/** Credits with three decimals, as the ledger counts them (thousandths). */
const credits = (milli: number) => Math.round(milli) / 1000;
/** A projection is not made from less than an hour of the period: it would be mostly noise. */
const MIN_ELAPSED_MS = 3_600_000;

export function summarizeUsage(o: {
  period: string;
  offices: readonly OfficeUsage[];
  plan: Pick<Plan, 'slug' | 'monthlyCredits' | 'overagePerCreditCents'> | undefined;
  now: number;
}): UsageSummary {
  const { start, end } = periodBounds(o.period);
  const usedMilli = o.offices.reduce((sum, u) => sum + u.milliCredits, 0);
  const allowance = o.plan?.monthlyCredits ?? 0;
  const elapsed = Math.min(Math.max(o.now - start, MIN_ELAPSED_MS), end - start);
  const projectedMilli = Math.max(usedMilli, Math.ceil((usedMilli * (end - start)) / elapsed));
  const overage = Math.max(0, projectedMilli / 1000 - allowance);
  return {
    period: o.period,
    periodStart: new Date(start).toISOString(),
    periodEnd: new Date(end).toISOString(),
    plan: o.plan?.slug ?? null,
    allowanceCredits: allowance,
    usedCredits: credits(usedMilli),
    remainingCredits: Math.max(0, credits(allowance * 1000 - usedMilli)),
    projectedCredits: credits(projectedMilli),
    projectedOverageCredits: credits(overage * 1000),
    projectedOverageCents: o.plan ? Math.ceil(overage * o.plan.overagePerCreditCents) : null,
    offices: o.offices.map((u) => ({ officeId: u.officeId, usedCredits: credits(u.milliCredits) })),
  };
}
