// The one catalogue of RFC 9457 problem types served on /api/v1 (docs/errors.md is checked against it).
import { type CatalogueEntry, CatalogueError, errorCatalogue } from './error-catalogue.ts';
import type { FieldError } from './framework-errors.ts';

export type { FieldError };

export interface ProblemSpec extends CatalogueEntry {
  title: string;
}

/** Every framework failure is answered with the problem type of the same name. */
export const problemErrors = errorCatalogue(
  {
    invalid_request: {
      status: 400,
      title: 'Invalid request',
      description: 'A query parameter, path parameter, header or body field failed validation.',
    },
    malformed_body: {
      status: 400,
      title: 'Malformed request body',
      description: 'The body could not be parsed as JSON.',
    },
    payload_too_large: {
      status: 413,
      title: 'Request body too large',
      description: 'The body is larger than the configured limit (COLONY_BODY_LIMIT_BYTES).',
    },
    unsupported_media_type: {
      status: 415,
      title: 'Unsupported media type',
      description: 'The body must be sent as application/json.',
    },
    not_found: {
      status: 404,
      title: 'Not found',
      description: 'The resource named in the path or query does not exist.',
    },
    route_not_found: {
      status: 404,
      title: 'Route not found',
      description: 'No operation exists at this method and path. GET /api/v1 lists every resource.',
      message: 'No operation {method} {path}. GET /api/v1 lists the resources.',
    },
    method_not_allowed: {
      status: 405,
      title: 'Method not allowed',
      description:
        'The path exists but does not serve this method; the Allow header lists the methods it serves.',
      message: '{path} does not serve {method}; it serves {allow}.',
    },
    uri_too_long: {
      status: 414,
      title: 'URI too long',
      description: 'A path segment is longer than the router accepts (100 characters).',
      message: 'A path segment is longer than 100 characters.',
    },
    unauthorized: {
      status: 401,
      title: 'Authentication required',
      description:
        'A valid bearer token is required in the Authorization header. The WWW-Authenticate header names the protected-resource metadata.',
    },
    insufficient_scope: {
      status: 403,
      title: 'Insufficient scope',
      description: 'The token is valid but lacks a scope this operation needs.',
    },
    forbidden: {
      status: 403,
      title: 'Forbidden',
      description: 'The credential is valid but may not act on this resource.',
    },
    origin_not_allowed: {
      status: 403,
      title: 'Origin not allowed',
      description:
        'The request came from a browser page whose origin is not on the allow-list (COLONY_ALLOWED_ORIGINS); nothing was done.',
    },
    plan_limit_reached: {
      status: 403,
      title: 'Plan limit reached',
      description:
        'The office counts against an account whose plan allows no more offices, agents or integrations (or whose plan is no longer active); `plan`, `planStatus`, `limit`, `used`, `allowed` and `upgradeUrl` say which and how to raise it.',
    },
    plan_feature_unavailable: {
      status: 403,
      title: 'Feature not in plan',
      description:
        'The office counts against an account whose plan (or add-ons) does not include this feature; `plan`, `planStatus`, `limit` (the feature) and `upgradeUrl` say which and how to get it.',
    },
    conflict: {
      status: 409,
      title: 'Conflict',
      description: 'The request conflicts with the current state of the resource (the detail says how).',
    },
    idempotency_conflict: {
      status: 422,
      title: 'Idempotency key reused with a different request',
      description: 'The Idempotency-Key was already used with a different request body.',
    },
    composition_conflict: {
      status: 409,
      title: 'Integration composition conflict',
      description:
        'The integration needs others that are not configured (or enabled for the agent), conflicts with one that is, or is needed by one that is; `missing`, `conflicting` and `requiredBy` list exactly which.',
    },
    member_rule_violated: {
      status: 409,
      title: 'Integration member rule violated',
      description:
        'Enabling the integration for this agent breaks its members rules (required roles, maximum agent count, per-agent settings); `violations` names each rule.',
    },
    injection_conflict: {
      status: 409,
      title: 'Injection conflict',
      description:
        'The integration would put an env variable or a credential file into the agent that another integration enabled for it already puts there; `conflicts` names each one and its holder.',
    },
    rate_limited: {
      status: 429,
      title: 'Too many requests',
      description: 'The rate limit for this client address is exhausted; retry after Retry-After seconds.',
    },
    internal_error: {
      status: 500,
      title: 'Internal server error',
      description: 'An unexpected error occurred. The request id identifies it in the server logs.',
      message: 'An unexpected error occurred.',
      expose: false,
    },
    service_unavailable: {
      status: 503,
      title: 'Service unavailable',
      description:
        'A dependency needed for this operation (the database, the cluster) is not reachable; retry after Retry-After seconds.',
      message: 'A dependency is not reachable; retry after {seconds} seconds.',
    },
    request_timeout: {
      status: 408,
      title: 'Request timeout',
      description:
        "The request (headers and body) did not arrive within the server's bound (COLONY_REQUEST_TIMEOUT_SECONDS); the connection is closed.",
      message: 'The request did not arrive in time.',
    },
    header_fields_too_large: {
      status: 431,
      title: 'Request header fields too large',
      description:
        'The request has more than 100 header fields, or its headers are larger than the server reads.',
      message: 'The request has too many or too large header fields.',
    },
    shutting_down: {
      status: 503,
      title: 'Shutting down',
      description:
        'This server is shutting down and takes no new requests; retry after Retry-After seconds (another replica answers).',
      message: 'The server is shutting down; retry after {seconds} seconds.',
    },
    invalid_signature: {
      status: 400,
      title: 'Invalid signature',
      description:
        'A webhook signature header is missing, malformed, older than five minutes or does not match the body; nothing was done.',
    },
    not_configured: {
      status: 503,
      title: 'Not configured',
      description:
        'This server is not configured for this operation; the detail names the settings it needs.',
    },
  } satisfies Record<string, ProblemSpec>,
  { framework: {} },
);

export const problemCatalogue = problemErrors.entries;
export type ProblemCode = keyof typeof problemCatalogue;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ProblemCode;
  requestId?: string;
  errors?: FieldError[];
  /** Problem-specific members (RFC 9457 extensions), such as `missing` on a composition conflict. */
  [extension: string]: unknown;
}

/** What a problem may carry besides its code and detail. */
export interface ProblemExtras {
  errors?: FieldError[];
  headers?: Record<string, string>;
  extensions?: Record<string, unknown>;
}

/** A typed error that any /api/v1 handler may throw; the problem plugin renders it. */
export class ProblemError extends CatalogueError<ProblemCode> {
  override readonly name = 'ProblemError';
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly extensions: Record<string, unknown>;

  constructor(code: ProblemCode, detail: string, extra: ProblemExtras = {}) {
    super(problemErrors, code, detail, extra.headers);
    this.detail = detail;
    this.errors = extra.errors;
    this.extensions = extra.extensions ?? {};
  }
}

export function problemTypeUri(baseUrl: string, code: ProblemCode): string {
  return `${baseUrl}/problems/${code}`;
}

/** Builds the RFC 9457 body; `instance` is the request path so a problem points at what failed. */
export function buildProblem(
  baseUrl: string,
  code: ProblemCode,
  detail: string,
  instance: string,
  extra: { requestId?: string; errors?: FieldError[]; extensions?: Record<string, unknown> } = {},
): ProblemBody {
  const spec = problemCatalogue[code];
  const body: ProblemBody = {
    ...extra.extensions,
    type: problemTypeUri(baseUrl, code),
    title: spec.title,
    status: spec.status,
    detail,
    instance,
    code,
  };
  if (extra.requestId) body.requestId = extra.requestId;
  if (extra.errors && extra.errors.length > 0) body.errors = extra.errors;
  return body;
}
