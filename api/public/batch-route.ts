// POST /api/v1/batch: up to 20 GET requests to /api/v1, run in-process, answered in input order.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Metrics } from '../observability/metrics.ts';
import { ProblemError } from '../shared/problem.ts';
import { setRateLimitHeaders } from '../shared/rate-limit/rate-limit-hook.ts';
import type { RateLimiter } from '../shared/rate-limit/rate-limiter.ts';
import { problemResponses, standardProblems } from './problem-responses.ts';
import { batchBody, batchResponseSchema } from './schemas.ts';

export const BATCH_HEADER = 'x-colony-batch';

// Transport and per-connection headers make no sense inside a batch result.
const DROPPED_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length']);

function parseBody(contentType: string | undefined, payload: string): unknown {
  if (contentType && /json/.test(contentType)) {
    try {
      return JSON.parse(payload);
    } catch {
      return payload;
    }
  }
  return payload;
}

type SubRequest = { id?: string | undefined; path: string; headers?: Record<string, string> | undefined };
type InjectResponse = Awaited<ReturnType<FastifyInstance['inject']>>;

function toResult(r: SubRequest, res: InjectResponse) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name) || name === 'x-request-id') continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return {
    ...(r.id !== undefined ? { id: r.id } : {}),
    status: res.statusCode,
    headers,
    body: parseBody(res.headers['content-type'] as string | undefined, res.payload),
  };
}

export interface BatchRouteOptions {
  apiLimiter: RateLimiter;
  batchSecret: string;
  metrics: Metrics;
}

export function registerBatchRoute(fastify: FastifyInstance, opts: BatchRouteOptions): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { apiLimiter, batchSecret, metrics } = opts;

  /** The batch itself was charged one unit on arrival; each further sub-request costs one more. */
  async function chargeBatch(request: FastifyRequest, reply: FastifyReply, size: number): Promise<void> {
    if (size <= 1) return;
    const decision = await apiLimiter.consume(request.ip, size - 1);
    setRateLimitHeaders(reply, decision);
    if (decision.allowed) return;
    metrics.rateLimited.labels('api').inc();
    throw new ProblemError(
      'rate_limited',
      `This batch of ${size} requests exceeds the remaining rate limit.`,
      {
        headers: { 'retry-after': String(decision.resetSeconds) },
      },
    );
  }

  app.post(
    '/batch',
    {
      schema: {
        operationId: 'batch',
        summary: 'Run up to 20 GET requests to /api/v1 paths in one round trip',
        tags: ['public'],
        body: batchBody,
        response: { 200: batchResponseSchema, ...standardProblems, ...problemResponses(413, 415) },
      },
    },
    async (request, reply) => {
      const { requests } = request.body;
      await chargeBatch(request, reply, requests.length);
      const inherited: Record<string, string> = {};
      if (request.headers.authorization) inherited.authorization = request.headers.authorization;
      const responses = await Promise.all(
        requests.map(async (r, i) => {
          const res = await fastify.inject({
            method: 'GET',
            url: r.path,
            headers: {
              ...inherited,
              ...r.headers,
              [BATCH_HEADER]: batchSecret,
              'x-request-id': `${request.id}.${i}`,
            },
          });
          return toResult(r, res);
        }),
      );
      return reply.send({ responses });
    },
  );
}
