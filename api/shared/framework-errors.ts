// The one mapping from what Fastify fails with (validation, body too large, bad JSON, wrong media type, a path
// the router cannot read, no route) onto any error catalogue; each surface renders the code in its own format.
import type { FastifyError, FastifyRequest } from 'fastify';
import { DatabaseUnavailableError } from '../storage/sql-driver.ts';
import {
  type ErrorCatalogue,
  type FrameworkErrorKind,
  fillTemplate,
  type MessageParams,
} from './error-catalogue.ts';

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
  headers?: Record<string, string>;
}

/** How soon a client may retry when a dependency is down: short, since the outage may be a blip. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

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
// 415, FST_ERR_CTP_INVALID_JSON_BODY 400); a checkout body parser's SyntaxError is given 400 too. The router's
// own two (a path that is not percent-encoded UTF-8, a parameter over maxParamLength) are told by their code.
function kindOf(err: FastifyError): FrameworkErrorKind {
  if (err instanceof DatabaseUnavailableError) return 'service_unavailable';
  if (err.code === 'FST_ERR_BAD_URL') return 'invalid_request';
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return 'uri_too_long';
  if (err.statusCode === 408) return 'request_timeout';
  if (err.statusCode === 431) return 'header_fields_too_large';
  if (err.statusCode === 413) return 'payload_too_large';
  if (err.statusCode === 415) return 'unsupported_media_type';
  if (err instanceof SyntaxError || err.statusCode === 400) return 'malformed_body';
  return 'internal_error';
}

// Kinds whose framework message says nothing the catalogue's own does not (or repeats the request back).
const FIXED_MESSAGE: ReadonlySet<FrameworkErrorKind> = new Set([
  'uri_too_long',
  'request_timeout',
  'header_fields_too_large',
]);

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
  if (kind === 'service_unavailable') {
    // The driver's message may name the database host; the client learns only when to retry.
    const seconds = DEPENDENCY_RETRY_AFTER_SECONDS;
    const message = fillTemplate(catalogue.entries[code].message ?? '', { seconds });
    return { kind, code, message, headers: { 'retry-after': String(seconds) } };
  }
  if (err.code === 'FST_ERR_BAD_URL') {
    // The router's message repeats the whole path; the problem's instance already names it.
    const message = 'path: not valid percent-encoded UTF-8';
    return {
      kind,
      code,
      message,
      fields: [{ location: 'path', message: 'not valid percent-encoded UTF-8' }],
    };
  }
  const entry = catalogue.entries[code];
  const fixed = entry.expose === false || FIXED_MESSAGE.has(kind);
  const message = fixed ? fillTemplate(entry.message ?? '', {}) : err.message;
  return { kind, code, message };
}

/** Logs what the client is not told: an unexpected error in full, an unreachable dependency as a warning. */
export function logMapped(
  request: FastifyRequest,
  kind: FrameworkErrorKind,
  err: unknown,
  what: string,
): void {
  if (kind === 'internal_error') request.log.error({ err }, what);
  else if (kind === 'service_unavailable') request.log.warn({ err }, 'dependency unavailable');
}

// The order methods are listed in an Allow header; any other method follows, alphabetically.
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const rank = (m: string) => (METHOD_ORDER.includes(m) ? METHOD_ORDER.indexOf(m) : METHOD_ORDER.length);

/** The Allow header's value: the methods in a stable order, HEAD beside GET (Fastify answers both). */
export function allowHeader(methods: Iterable<string>): string {
  const set = new Set(methods);
  if (set.has('GET')) set.add('HEAD');
  return [...set].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).join(', ');
}

/**
 * The answer for a method and path nothing serves: 405 with Allow when the path serves other methods
 * (`served`, from the route table), otherwise 404, each from the catalogue's template. A route that
 * itself serves the method and still found nothing (reply.callNotFound) is a 404 too.
 */
export function noRoute<C extends string>(
  catalogue: ErrorCatalogue<C>,
  request: FastifyRequest,
  served: readonly string[] = [],
): { code: C; message: string; headers: Record<string, string> } {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const params = { method: request.method, path: pathOf(request) };
  if (served.length === 0 || served.includes(method)) {
    const code = catalogue.framework.route_not_found;
    return { code, message: messageOf(catalogue, code, params), headers: {} };
  }
  const allow = allowHeader(served);
  const code = catalogue.framework.method_not_allowed;
  return { code, message: messageOf(catalogue, code, { ...params, allow }), headers: { allow } };
}

function messageOf<C extends string>(catalogue: ErrorCatalogue<C>, code: C, params: MessageParams): string {
  return fillTemplate(catalogue.entries[code].message ?? 'No operation {method} {path}.', params);
}

/** The request path without its query string. */
export function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? request.url;
}
