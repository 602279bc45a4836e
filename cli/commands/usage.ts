// `colony usage`: the credits the account used this period, against its plan's allowance.

import { clientFor } from '../client-from-env.ts';
import { printRecord } from '../output.ts';
import type { Usage } from '../sdk/client.ts';
import type { Handler } from '../spec.ts';

const n = (credits: number) => credits.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** Pure: the lines `usage` prints; a note when there is nothing metered for the credential. */
export function describeUsage(u: Usage | null | undefined): string[] {
  if (!u)
    return [
      'No metered usage: the credential has no account with a plan or an office, or no cluster is metered.',
    ];
  const lines = [`period: ${u.period} (${u.periodStart.slice(0, 10)} to ${u.periodEnd.slice(0, 10)}, UTC)`];
  lines.push(`plan: ${u.plan ?? '(none: nothing included)'}`);
  lines.push(`used: ${n(u.usedCredits)} of ${n(u.allowanceCredits)} credits (${n(u.remainingCredits)} left)`);
  const cost = u.projectedOverageCents === null ? '' : `, $${(u.projectedOverageCents / 100).toFixed(2)}`;
  lines.push(
    u.projectedOverageCredits > 0
      ? `projected: ${n(u.projectedCredits)} credits, ${n(u.projectedOverageCredits)} over the allowance${cost}`
      : `projected: ${n(u.projectedCredits)} credits, within the allowance`,
  );
  for (const o of u.offices) lines.push(`  ${o.officeId}  ${n(o.usedCredits)}`);
  return lines;
}

export const run: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const usage = (await client.me()).usage ?? null;
  printRecord(ctx, usage, () => describeUsage(usage));
  return 0;
};
