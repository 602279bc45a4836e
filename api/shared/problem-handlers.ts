// Renders every error and unknown route (404, or 405 with Allow) in a scope as RFC 9457 application/problem+json.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { frameworkError, logMapped, noRoute, pathOf } from './framework-errors.ts';
import {
  buildProblem,
  type ProblemCode,
  ProblemError,
  type ProblemExtras,
  problemErrors,
} from './problem.ts';
import { servedMethods } from './route-table.ts';

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

/** What a scope answers when nothing serves the request: 404, or 405 with Allow. */
function noRouteProblem(baseUrl: string) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const { code, message, headers } = noRoute(problemErrors, request, servedMethods(request));
    return sendProblem(reply, request, baseUrl, code, message, { headers });
  };
}

/** Any error as problem+json; an unexpected one is logged and answered without its own message. */
export function problemErrorHandler(baseUrl: string) {
  const notFound = noRouteProblem(baseUrl);
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ProblemError) {
      return sendProblem(reply, request, baseUrl, err.code, err.detail, {
        ...(err.errors ? { errors: err.errors } : {}),
        headers: err.headers,
        extensions: err.extensions,
      });
    }
    const { kind, code, message, fields, headers } = frameworkError(problemErrors, err);
    logMapped(request, kind, err, 'unhandled error');
    // Nothing serves the request, so what its body was like does not matter (a QUERY without a type).
    if (kind !== 'internal_error' && request.is404) return notFound(request, reply);
    return sendProblem(reply, request, baseUrl, code, message, {
      ...(fields ? { errors: fields } : {}),
      ...(headers ? { headers } : {}),
    });
  };
}

export function installProblemHandlers(scope: FastifyInstance, baseUrl: string): void {
  scope.setErrorHandler(problemErrorHandler(baseUrl));
  scope.setNotFoundHandler(noRouteProblem(baseUrl));
}
