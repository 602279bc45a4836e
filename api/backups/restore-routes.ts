// POST /api/snapshots/{id}/restore and GET /api/snapshots/{id}/restores/{restoreId}: restores run
// as durable jobs and report per part what was brought back and what could not be.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { problemResponses } from '../public/problem-responses.ts';
import { idempotencyKeyHeaders } from '../public/schemas.ts';
import { requestHash } from '../shared/canonical-json.ts';
import { ProblemError } from '../shared/problem.ts';
import { type BackupsOptions, findSnapshot, needs, POLL_AFTER_SECONDS, secured } from './route-helpers.ts';
import { restoreBody, restoreParams, restoreSchema, snapshotParams } from './schemas.ts';
import { newRestoreId, presentRestore, restoreUrl } from './snapshot-model.ts';
import { pendingReport } from './snapshot-runner.ts';
import { RestoreInProgressError } from './snapshots-repo.ts';

const ALL_PARTS = ['resources', 'database', 'volumes'] as const;

export function registerRestoreRoutes(fastify: FastifyInstance, services: BackupsOptions): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, storage, backups, now } = services;

  app.post(
    '/:id/restore',
    {
      ...needs('backups:admin'),
      schema: {
        ...secured,
        operationId: 'restoreSnapshot',
        summary: 'Bring the office back to a snapshot; poll the Location until status is completed',
        headers: idempotencyKeyHeaders,
        params: snapshotParams,
        body: restoreBody.nullish(),
        response: { 202: restoreSchema, ...problemResponses(400, 401, 403, 404, 409, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const { snapshot: s, principal } = await findSnapshot(request, services);
      await services.entitlements.requireFeature(s.officeId, 'backups');
      if (s.status === 'deleted')
        throw new ProblemError('conflict', `Snapshot ${s.id} was deleted; it can no longer be restored.`);
      if (s.status !== 'completed')
        throw new ProblemError(
          'conflict',
          `Snapshot ${s.id} is ${s.status}; only a completed snapshot can be restored.`,
        );
      const parts = [...new Set(request.body?.parts ?? ALL_PARTS)].sort();
      const key = request.headers['idempotency-key'];
      const hash = requestHash({ snapshot: s.id, parts });
      const { restore, created } = await storage.snapshots
        .createRestore(
          {
            id: newRestoreId(),
            snapshotId: s.id,
            officeId: s.officeId,
            createdBy: principal.subject,
            report: pendingReport(parts),
            ...(key ? { idempotencyKey: `restore:${principal.subject}:${key}`, requestHash: hash } : {}),
          },
          now(),
        )
        .catch(async (err) => {
          if (!(err instanceof RestoreInProgressError)) throw err;
          const [active] = await storage.snapshots.activeRestores({ officeId: s.officeId });
          throw new ProblemError(
            'conflict',
            `A restore of office ${s.officeId} is already in progress${active ? ` (${active.id})` : ''}; wait for it to finish.`,
          );
        });
      if (!created) {
        if (restore.requestHash !== hash || restore.snapshotId !== s.id)
          throw new ProblemError(
            'idempotency_conflict',
            `Idempotency-Key "${key}" was already used for a different restore request (${restore.id}).`,
          );
        reply.header('idempotency-replayed', 'true');
      } else {
        await backups.enqueueRestore(restore);
      }
      return reply
        .code(202)
        .header('location', restoreUrl(config.baseUrl, s.id, restore.id))
        .header('retry-after', POLL_AFTER_SECONDS)
        .send(presentRestore(config.baseUrl, (await storage.snapshots.getRestore(restore.id)) ?? restore));
    },
  );

  app.get(
    '/:id/restores/:restoreId',
    {
      ...needs('backups:read'),
      schema: {
        ...secured,
        operationId: 'getSnapshotRestore',
        summary: 'One restore and its per-part report',
        params: restoreParams,
        response: { 200: restoreSchema, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { snapshot } = await findSnapshot(request, services);
      const r = await storage.snapshots.getRestore(request.params.restoreId);
      if (!r || r.snapshotId !== snapshot.id)
        throw new ProblemError(
          'not_found',
          `No restore ${request.params.restoreId} of snapshot ${snapshot.id}.`,
        );
      if (r.status === 'pending' || r.status === 'running') reply.header('retry-after', POLL_AFTER_SECONDS);
      return presentRestore(config.baseUrl, r);
    },
  );
}
