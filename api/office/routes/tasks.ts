// The office's task queue on the office-manager API: list (newest first, cursor-paged), create,
// read and move tasks through their statuses. Integrations' task templates file tasks here too.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponses } from '../../public/problem-responses.ts';
import { ProblemError } from '../../shared/problem.ts';
import type { OfficeRouteContext } from '../office-route-context.ts';
import { officeParams, officeSecured } from '../schemas.ts';
import { type TaskRecord, taskStatuses } from '../tasks-repo.ts';

const problems = problemResponses(400, 401, 403, 404, 429, 503);

export const taskSchema = z
  .object({
    id: z.string(),
    officeId: z.string(),
    title: z.string(),
    prompt: z.string(),
    status: z.enum(taskStatuses),
    source: z
      .object({ integrationId: z.string(), template: z.string(), scheduledFor: z.string().nullable() })
      .nullable()
      .describe('The integration task template that filed it, if any'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'OfficeTask' });

export const presentTask = (t: TaskRecord) => ({
  id: t.id,
  officeId: t.officeId,
  title: t.title,
  prompt: t.prompt,
  status: t.status,
  source:
    t.integrationId && t.template
      ? {
          integrationId: t.integrationId,
          template: t.template,
          scheduledFor: t.scheduledFor === null ? null : new Date(t.scheduledFor).toISOString(),
        }
      : null,
  createdAt: new Date(t.createdAt).toISOString(),
  updatedAt: new Date(t.updatedAt).toISOString(),
});

const cursorOf = (t: TaskRecord) => Buffer.from(JSON.stringify([t.createdAt, t.id])).toString('base64url');
function readCursor(cursor: string): { createdAt: number; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [number, string];
    if (typeof createdAt === 'number' && typeof id === 'string') return { createdAt, id };
  } catch {}
  throw new ProblemError('invalid_request', 'cursor is not one this API returned', {
    errors: [{ location: 'query.cursor', message: 'unknown cursor' }],
  });
}

const taskParams = officeParams.extend({
  taskId: z
    .string()
    .max(25)
    .regex(/^task_[a-f0-9]{20}$/, 'a task id'),
});

export function taskRoutes(fastify: FastifyInstance, ctx: OfficeRouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { storage, now, office } = ctx;
  const found = (t: TaskRecord | undefined, id: string) => {
    if (!t) throw new ProblemError('not_found', `No task ${id} in this office.`);
    return presentTask(t);
  };

  app.get(
    '/:officeID/tasks',
    {
      schema: {
        ...officeSecured,
        operationId: 'listOfficeTasks',
        summary: 'The office’s task queue, newest first',
        params: officeParams,
        querystring: z.strictObject({
          status: z.enum(taskStatuses).optional(),
          limit: z.coerce.number().int().min(1).max(100).default(20),
          cursor: z.string().max(200).optional(),
        }),
        response: {
          200: z.object({ tasks: z.array(taskSchema), nextCursor: z.string().nullable() }),
          ...problems,
        },
      },
    },
    async (request) => {
      const { officeID } = request.params;
      await office(request, officeID);
      const { status, limit, cursor } = request.query;
      const page = await storage.tasks.list(officeID, {
        limit: limit + 1,
        ...(status ? { status } : {}),
        ...(cursor ? { after: readCursor(cursor) } : {}),
      });
      const tasks = page.slice(0, limit);
      const last = tasks[tasks.length - 1];
      return {
        tasks: tasks.map(presentTask),
        nextCursor: page.length > limit && last ? cursorOf(last) : null,
      };
    },
  );

  app.post(
    '/:officeID/tasks',
    {
      schema: {
        ...officeSecured,
        operationId: 'createOfficeTask',
        summary: 'Add a task to the office’s queue',
        params: officeParams,
        body: z.strictObject({
          title: z.string().trim().min(1).max(200),
          prompt: z.string().min(1).max(20_000),
        }),
        response: { 201: taskSchema, ...problems },
      },
    },
    async (request, reply) => {
      const { officeID } = request.params;
      await office(request, officeID);
      const created = await storage.tasks.create({ officeId: officeID, ...request.body }, now());
      return reply.code(201).send(found(created, 'new'));
    },
  );

  app.get(
    '/:officeID/tasks/:taskId',
    {
      schema: {
        ...officeSecured,
        operationId: 'getOfficeTask',
        summary: 'One task',
        params: taskParams,
        response: { 200: taskSchema, ...problems },
      },
    },
    async (request) => {
      const { officeID, taskId } = request.params;
      await office(request, officeID);
      return found(await storage.tasks.get(officeID, taskId), taskId);
    },
  );

  app.patch(
    '/:officeID/tasks/:taskId',
    {
      schema: {
        ...officeSecured,
        operationId: 'updateOfficeTask',
        summary: 'Move a task to another status',
        params: taskParams,
        body: z.strictObject({ status: z.enum(taskStatuses) }),
        response: { 200: taskSchema, ...problems },
      },
    },
    async (request) => {
      const { officeID, taskId } = request.params;
      await office(request, officeID);
      return found(await storage.tasks.setStatus(officeID, taskId, request.body.status, now()), taskId);
    },
  );
}
