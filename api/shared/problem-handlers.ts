// Renders every error and unknown route in a scope as RFC 9457 application/problem+json.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildProblem, type FieldError, type ProblemCode, ProblemError } from './problem.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
}

function validationErrors(err: FastifyError): FieldError[] {
  const context = (err as { validationContext?: string }).validationContext ?? 'body';
  const where = context === 'querystring' ? 'query' : context;
  return ((err.validation ?? []) as ValidationIssue[]).map((issue) => {
    const path = (issue.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    return { location: path ? `${where}.${path}` : where, message: issue.message ?? 'invalid value' };
  });
}

/** Maps Fastify's own errors (parsing, size, validation) onto the catalogue. */
function classify(err: FastifyError): { code: ProblemCode; detail: string; errors?: FieldError[] } {
  if (err.validation) {
    const errors = validationErrors(err);
    return {
      code: 'invalid_request',
      detail: errors.map((e) => `${e.location}: ${e.message}`).join('; '),
      errors,
    };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'payload_too_large', detail: err.message };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'unsupported_media_type', detail: err.message };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { code: 'malformed_body', detail: err.message };
  }
  if (err instanceof SyntaxError || err.statusCode === 400)
    return { code: 'malformed_body', detail: err.message };
  if (err.statusCode === 413) return { code: 'payload_too_large', detail: err.message };
  if (err.statusCode === 415) return { code: 'unsupported_media_type', detail: err.message };
  return { code: 'internal_error', detail: 'An unexpected error occurred.' };
}

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  baseUrl: string,
  code: ProblemCode,
  detail: string,
  extra: {
    errors?: FieldError[];
    headers?: Record<string, string>;
    extensions?: Record<string, unknown>;
  } = {},
): FastifyReply {
  const body = buildProblem(baseUrl, code, detail, request.url.split('?')[0] ?? request.url, {
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

export function installProblemHandlers(scope: FastifyInstance, baseUrl: string): void {
  scope.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ProblemError) {
      return sendProblem(reply, request, baseUrl, err.code, err.detail, {
        ...(err.errors ? { errors: err.errors } : {}),
        headers: err.headers,
        extensions: err.extensions,
      });
    }
    const { code, detail, errors } = classify(err);
    if (code === 'internal_error') request.log.error({ err }, 'unhandled error');
    return sendProblem(reply, request, baseUrl, code, detail, errors ? { errors } : {});
  });
  scope.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      request,
      baseUrl,
      'route_not_found',
      `No operation ${request.method} ${request.url.split('?')[0]}. GET /api/v1 lists the resources.`,
    ),
  );
}
