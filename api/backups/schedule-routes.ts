// GET and PUT /api/snapshots/schedules/{officeID}: an office's daily snapshot and its retention.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { problemResponses } from '../public/problem-responses.ts';
import { requireOffice } from '../shared/authenticate.ts';
import { principalOf } from './backups-auth.ts';
import { type BackupsOptions, needs, requireKnownOffice, secured } from './route-helpers.ts';
import { officeParams, scheduleBody, scheduleSchema } from './schemas.ts';
import { DEFAULT_SCHEDULE, nextDailyRun, presentSchedule } from './snapshot-model.ts';
import type { ScheduleRecord } from './snapshots-repo.ts';

export function registerScheduleRoutes(fastify: FastifyInstance, services: BackupsOptions): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { storage, now } = services;

  /** An office never configured has the default: daily at 03:00 UTC, kept 30 days. */
  const effective = async (officeId: string): Promise<ScheduleRecord> =>
    (await storage.snapshots.getSchedule(officeId)) ?? {
      officeId,
      ...DEFAULT_SCHEDULE,
      nextRunAt: nextDailyRun(now(), DEFAULT_SCHEDULE.hourUtc),
      updatedAt: now(),
    };

  app.get(
    '/schedules/:officeID',
    {
      ...needs('backups:admin'),
      schema: {
        ...secured,
        operationId: 'getSnapshotSchedule',
        summary: 'An office’s snapshot schedule and retention',
        params: officeParams,
        response: { 200: scheduleSchema, ...problemResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      requireOffice(principalOf(request), request.params.officeID);
      await requireKnownOffice(services, request.params.officeID);
      return presentSchedule(await effective(request.params.officeID));
    },
  );

  app.put(
    '/schedules/:officeID',
    {
      ...needs('backups:admin'),
      schema: {
        ...secured,
        operationId: 'putSnapshotSchedule',
        summary: 'Turn an office’s daily snapshot on or off, and set its hour and retention',
        params: officeParams,
        body: scheduleBody,
        response: { 200: scheduleSchema, ...problemResponses(400, 401, 403, 404, 413, 415, 429, 503) },
      },
    },
    async (request) => {
      const { officeID } = request.params;
      requireOffice(principalOf(request), officeID);
      await requireKnownOffice(services, officeID);
      // Turning daily snapshots off is always allowed; on needs the add-on.
      if (request.body.enabled) await services.entitlements.requireFeature(officeID, 'backups');
      const saved = await storage.snapshots.putSchedule({
        officeId: officeID,
        enabled: request.body.enabled,
        hourUtc: request.body.hourUtc,
        retentionDays: request.body.retentionDays,
        nextRunAt: nextDailyRun(now(), request.body.hourUtc),
        updatedAt: now(),
      });
      return presentSchedule(saved);
    },
  );
}
