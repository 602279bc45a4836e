// The backups API at /api/snapshots: list, take, read, delete and restore office snapshots, and
// each office's daily schedule. Bearer tokens with backups scopes; problem+json errors.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponses } from '../public/problem-responses.ts';
import { idempotencyKeyHeaders } from '../public/schemas.ts';
import { requireOffice } from '../shared/authenticate.ts';
import { requestHash } from '../shared/canonical-json.ts';
import { useJsonApi } from '../shared/mount.ts';
import { ProblemError } from '../shared/problem.ts';
import { backupsAuthHook, principalOf } from './backups-auth.ts';
import { registerRestoreRoutes } from './restore-routes.ts';
import {
  type BackupsOptions,
  findSnapshot,
  needs,
  POLL_AFTER_SECONDS,
  requireKnownOffice,
  secured,
} from './route-helpers.ts';
import { registerScheduleRoutes } from './schedule-routes.ts';
import { createBody, listQuery, snapshotListSchema, snapshotParams, snapshotSchema } from './schemas.ts';
import {
  decodeSnapshotCursor,
  encodeSnapshotCursor,
  initialParts,
  newSnapshotId,
  presentSnapshot,
  snapshotUrl,
} from './snapshot-model.ts';

export async function backupsPlugin(fastify: FastifyInstance, opts: BackupsOptions): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, storage, backups, now } = opts;
  useJsonApi(fastify, { baseUrl: config.baseUrl, rateLimit: opts.rateLimit, verifiers: opts.verifiers });
  fastify.addHook('onRequest', backupsAuthHook({ baseUrl: config.baseUrl, verifiers: opts.verifiers }));

  app.get(
    '/',
    {
      ...needs('backups:read'),
      schema: {
        ...secured,
        operationId: 'listSnapshots',
        summary: 'Snapshots the credential may see, newest first (cursor paging)',
        querystring: listQuery,
        response: { 200: snapshotListSchema, ...problemResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const principal = principalOf(request);
      if (q.office) requireOffice(principal, q.office);
      const before = q.cursor === undefined ? undefined : decodeSnapshotCursor(q.cursor);
      if (q.cursor !== undefined && !before)
        throw new ProblemError('invalid_request', 'query.cursor: not a cursor this API issued', {
          errors: [{ location: 'query.cursor', message: 'not a cursor this API issued' }],
        });
      const rows = await storage.snapshots.list({
        offices: principal.offices,
        officeId: q.office,
        status: q.status,
        limit: q.limit + 1,
        before,
      });
      const page = rows.slice(0, q.limit);
      const last = page.at(-1);
      return {
        data: page.map((s) => presentSnapshot(config.baseUrl, s)),
        nextCursor: rows.length > q.limit && last ? encodeSnapshotCursor(last) : null,
      };
    },
  );

  app.post(
    '/',
    {
      ...needs('backups:write'),
      schema: {
        ...secured,
        operationId: 'createSnapshot',
        summary: 'Take a snapshot of an office; poll the Location until status is completed',
        headers: idempotencyKeyHeaders,
        body: createBody,
        response: { 202: snapshotSchema, ...problemResponses(400, 401, 403, 404, 413, 415, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const { office, description } = request.body;
      const principal = principalOf(request);
      requireOffice(principal, office);
      await requireKnownOffice(opts, office);
      const key = request.headers['idempotency-key'];
      const hash = requestHash(request.body);
      const { snapshot, created } = await storage.snapshots.create(
        {
          id: newSnapshotId(),
          officeId: office,
          trigger: 'manual',
          description: description ?? null,
          parts: initialParts(),
          createdBy: principal.subject,
          // Scoped to the caller, so one credential's key never replays another's snapshot.
          ...(key ? { idempotencyKey: `manual:${principal.subject}:${key}`, requestHash: hash } : {}),
        },
        now(),
      );
      if (!created) {
        if (snapshot.requestHash !== hash)
          throw new ProblemError(
            'idempotency_conflict',
            `Idempotency-Key "${key}" was already used for a different snapshot request (${snapshot.id}).`,
          );
        reply.header('idempotency-replayed', 'true');
      } else {
        await backups.enqueueSnapshot(snapshot);
      }
      const current = (await storage.snapshots.get(snapshot.id)) ?? snapshot;
      return reply
        .code(202)
        .header('location', snapshotUrl(config.baseUrl, snapshot.id))
        .header('retry-after', POLL_AFTER_SECONDS)
        .send(presentSnapshot(config.baseUrl, current));
    },
  );

  app.get(
    '/:id',
    {
      ...needs('backups:read'),
      schema: {
        ...secured,
        operationId: 'getSnapshot',
        summary: 'One snapshot with its per-part report',
        params: snapshotParams,
        response: { 200: snapshotSchema, ...problemResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { snapshot: s } = await findSnapshot(request, opts);
      if (s.status === 'pending' || s.status === 'running') reply.header('retry-after', POLL_AFTER_SECONDS);
      return presentSnapshot(config.baseUrl, s);
    },
  );

  app.delete(
    '/:id',
    {
      ...needs('backups:admin'),
      schema: {
        ...secured,
        operationId: 'deleteSnapshot',
        summary: 'Delete a finished snapshot and everything it holds',
        params: snapshotParams,
        response: { 204: z.null().describe('Deleted'), ...problemResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const { snapshot: s } = await findSnapshot(request, opts);
      if (s.status === 'deleted') return reply.code(204).send(null);
      if (s.status === 'pending' || s.status === 'running')
        throw new ProblemError(
          'conflict',
          `Snapshot ${s.id} is still being taken; delete it once it has finished.`,
        );
      if ((await storage.snapshots.activeRestores({ snapshotId: s.id })).length > 0)
        throw new ProblemError(
          'conflict',
          `Snapshot ${s.id} is being restored; delete it once the restore has finished.`,
        );
      if (!(await backups.deleteSnapshot(s)))
        throw new ProblemError('conflict', `Snapshot ${s.id} changed while it was being deleted; try again.`);
      return reply.code(204).send(null);
    },
  );

  registerRestoreRoutes(fastify, opts);
  registerScheduleRoutes(fastify, opts);
}
