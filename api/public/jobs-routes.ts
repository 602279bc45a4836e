// POST /api/v1/jobs and GET /api/v1/jobs/{id}: durable async jobs with idempotent creation.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Storage } from '../app-storage.ts';
import type { Config } from '../config.ts';
import type { JobHandler } from '../domain/jobs/job-runner.ts';
import { requestHash } from '../shared/canonical-json.ts';
import { ProblemError } from '../shared/problem.ts';
import { jobUrl, presentJob } from './presenters.ts';
import { problemResponses, standardProblems } from './problem-responses.ts';
import { idempotencyKeyHeaders, jobCreateBody, jobParams, jobSchema } from './schemas.ts';

/** How long a client should wait before its first poll. */
const POLL_AFTER_SECONDS = '1';

export interface JobRoutesOptions {
  config: Config;
  storage: Storage;
  jobHandlers: Record<string, JobHandler<never>>;
  now: () => number;
}

export function registerJobRoutes(fastify: FastifyInstance, opts: JobRoutesOptions): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { storage, jobHandlers, config, now } = opts;

  app.post(
    '/jobs',
    {
      schema: {
        operationId: 'createJob',
        summary: 'Start an asynchronous job; poll the Location until status is completed',
        tags: ['public'],
        headers: idempotencyKeyHeaders,
        body: jobCreateBody,
        response: { 202: jobSchema, ...standardProblems, ...problemResponses(413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { type, input = {} } = request.body;
      const handler = jobHandlers[type];
      if (!handler) throw new ProblemError('invalid_request', `Unknown job type ${type}`);
      const parsedInput = handler.input.safeParse(input);
      if (!parsedInput.success) {
        const errors = parsedInput.error.issues.map((i) => ({
          location: ['body', 'input', ...i.path].join('.'),
          message: i.message,
        }));
        throw new ProblemError(
          'invalid_request',
          errors.map((e) => `${e.location}: ${e.message}`).join('; '),
          {
            errors,
          },
        );
      }
      const key = request.headers['idempotency-key'];
      const hash = requestHash({ type, input });
      const { job, created } = await storage.jobs.create(
        {
          type,
          input,
          maxAttempts: handler.maxAttempts,
          // Namespaced: internal jobs (backups) hold keys of their own in the same column.
          ...(key ? { idempotencyKey: `public:${key}`, requestHash: hash } : {}),
        },
        now(),
      );
      if (!created) {
        if (job.requestHash !== hash) {
          throw new ProblemError(
            'idempotency_conflict',
            `Idempotency-Key "${key}" was already used for a different job request (${job.id}).`,
          );
        }
        reply.header('idempotency-replayed', 'true');
      }
      return reply
        .code(202)
        .header('location', jobUrl(config.baseUrl, job.id))
        .header('retry-after', POLL_AFTER_SECONDS)
        .send(presentJob(config.baseUrl, job));
    },
  );

  app.get(
    '/jobs/:id',
    {
      schema: {
        operationId: 'getJob',
        summary: 'Job state; poll until status is completed (or failed)',
        tags: ['public'],
        params: jobParams,
        response: { 200: jobSchema, ...standardProblems },
      },
    },
    async (request, reply) => {
      const job = await storage.jobs.get(request.params.id);
      if (!job) throw new ProblemError('not_found', `No job with id ${request.params.id}.`);
      if (job.status !== 'completed' && job.status !== 'failed')
        reply.header('retry-after', POLL_AFTER_SECONDS);
      return presentJob(config.baseUrl, job);
    },
  );
}
