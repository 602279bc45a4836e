// Renders every error and unknown route in a scope as RFC 9457 application/problem+json.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { frameworkError, pathOf, routeNotFound } from './framework-errors.ts';
import { InputRefusedError } from './input-guards.ts';
import {
  buildProblem,
  type ProblemCode,
  ProblemError,
  type ProblemExtras,
  problemErrors,
} from './problem.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  baseUrl: string,
  code: ProblemCode,
  detail: string,
  extra: ProblemExtras = {},
): FastifyReply {
  const body = buildProblem(baseUrl, code, detail, pathOf(request), {
    requestId: request.id,
    ...(extra.errors ? { errors: extra.errors } : {}),
    ...(extra.extensions ? { extensions: extra.extensions } : {}),
  });
  return reply
    .code(body.status)
    .headers(extra.headers ?? {})
    .type(PROBLEM_CONTENT_TYPE)
    .serializer(JSON.stringify)
    .send(body);
}

/** Any error as problem+json; an unexpected one is logged and answered without its own message. */
export function problemErrorHandler(baseUrl: string) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ProblemError) {
      return sendProblem(reply, request, baseUrl, err.code, err.detail, {
        ...(err.errors ? { errors: err.errors } : {}),
        headers: err.headers,
        extensions: err.extensions,
      });
    }
    const { kind, code, message, fields } = frameworkError(problemErrors, err);
    if (kind === 'internal_error') request.log.error({ err }, 'unhandled error');
    return sendProblem(reply, request, baseUrl, code, message, fields ? { errors: fields } : {});
  };
}

export function installProblemHandlers(scope: FastifyInstance, baseUrl: string): void {
  scope.setErrorHandler(problemErrorHandler(baseUrl));
  scope.setNotFoundHandler((request, reply) => {
    const { code, message } = routeNotFound(problemErrors, request);
    return sendProblem(reply, request, baseUrl, code, message);
  });
}

/**
 * The error handler of the server's root, for the routes no surface handler covers (pages, documents):
 * a server failure answers problem+json with a generic message (never a database's own text), and so
 * does a refused input (input-guards.ts); anything else keeps Fastify's own answer.
 */
export function rootErrorHandler(baseUrl: string) {
  const problem = problemErrorHandler(baseUrl);
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if ((err.statusCode ?? 500) >= 500 || err instanceof InputRefusedError)
      return problem(err, request, reply);
    return reply.send(err);
  };
}
