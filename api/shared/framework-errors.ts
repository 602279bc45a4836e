// The one mapping from what Fastify fails with (validation, body too large, bad JSON, wrong media type, no
// route) onto any error catalogue; each surface then renders the code in its own wire format.
import type { FastifyError, FastifyRequest } from 'fastify';
import { type ErrorCatalogue, type FrameworkErrorKind, fillTemplate } from './error-catalogue.ts';

export interface FieldError {
  /** Where the bad value was: `query.limit`, `body.requests[3].method`, `header.idempotency-key`. */
  location: string;
  message: string;
}

export interface MappedError<C extends string> {
  kind: FrameworkErrorKind;
  code: C;
  message: string;
  fields?: FieldError[];
}

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

// Fastify's body errors carry their status (FST_ERR_CTP_BODY_TOO_LARGE 413, FST_ERR_CTP_INVALID_MEDIA_TYPE
// 415, FST_ERR_CTP_INVALID_JSON_BODY 400); a checkout body parser's SyntaxError is given 400 too.
function kindOf(err: FastifyError): FrameworkErrorKind {
  if (err.statusCode === 413) return 'payload_too_large';
  if (err.statusCode === 415) return 'unsupported_media_type';
  if (err instanceof SyntaxError || err.statusCode === 400) return 'malformed_body';
  return 'internal_error';
}

/** An error no handler made on purpose, as the catalogue's code; hidden messages become the template. */
export function frameworkError<C extends string>(
  catalogue: ErrorCatalogue<C>,
  err: FastifyError,
): MappedError<C> {
  if (err.validation) {
    const fields = validationErrors(err);
    const message = fields.map((e) => `${e.location}: ${e.message}`).join('; ');
    return { kind: 'invalid_request', code: catalogue.framework.invalid_request, message, fields };
  }
  const kind = kindOf(err);
  const code = catalogue.framework[kind];
  const entry = catalogue.entries[code];
  const message = entry.expose === false ? fillTemplate(entry.message ?? '', {}) : err.message;
  return { kind, code, message };
}

/** The answer for a method and path nothing serves, from the catalogue's route_not_found template. */
export function routeNotFound<C extends string>(
  catalogue: ErrorCatalogue<C>,
  request: FastifyRequest,
): { code: C; message: string } {
  const code = catalogue.framework.route_not_found;
  const template = catalogue.entries[code].message ?? 'No operation {method} {path}.';
  return { code, message: fillTemplate(template, { method: request.method, path: pathOf(request) }) };
}

/** The request path without its query string. */
export function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? request.url;
}
