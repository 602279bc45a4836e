// `colony backups schedule show|set --office <office>`: the daily snapshot of an office.
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { SnapshotSchedule } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

/** Pure: `acme: daily at 03:00 UTC, kept 30 days; next 2026-11-27T03:00:00.000Z`, or off. */
export const scheduleLine = (s: SnapshotSchedule): string =>
  s.enabled
    ? `${s.office}: daily at ${String(s.hourUtc).padStart(2, '0')}:00 UTC, kept ${s.retentionDays} days; next ${s.nextRunAt ?? '-'}`
    : `${s.office}: no daily snapshot`;

export const show: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const schedule = await client.getSchedule(String(ctx.flags.office));
  printRecord(ctx, schedule, () => [scheduleLine(schedule)]);
  return 0;
};

export const set: Handler = async (ctx) => {
  const { office, hour, off } = ctx.flags;
  const days = ctx.flags['retention-days'];
  const client = await clientFor(ctx);
  const schedule = await client.putSchedule(String(office), {
    enabled: off !== true,
    hourUtc: typeof hour === 'number' ? hour : 3,
    retentionDays: typeof days === 'number' ? days : 30,
  });
  printRecord(ctx, schedule, () => [scheduleLine(schedule)]);
  return 0;
};
