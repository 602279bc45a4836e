// The one catalogue of UCP errors (docs/errors.md is checked against it), answered as UCP's error_response:
// the `ucp` block with status `error` and one error message.
import { type CatalogueEntry, CatalogueError, errorCatalogue } from '../shared/error-catalogue.ts';
import type { UcpErrorMessage, UcpErrorResponse } from './checkout-schema.ts';
import { CURRENT_UCP_VERSION, type UcpVersion } from './versions.ts';

export interface UcpErrorSpec extends CatalogueEntry {
  severity: 'recoverable' | 'unrecoverable';
}

/** Malformed bodies are `invalid_json`; the other framework failures keep their names. */
export const ucpErrors = errorCatalogue(
  {
    invalid_request: {
      status: 400,
      severity: 'recoverable',
      description: 'A header or body field is missing or has the wrong type; `path` is its JSONPath.',
    },
    invalid_json: { status: 400, severity: 'recoverable', description: 'The body is not valid JSON.' },
    item_unavailable: {
      status: 400,
      severity: 'recoverable',
      description:
        'An item id is not in the catalog (`GET /api/v1/commerce/catalog` lists them); nothing was created.',
      message: "No catalog item with id '{first}'; GET /api/v1/commerce/catalog lists them.",
    },
    invalid_profile_url: {
      status: 400,
      severity: 'unrecoverable',
      description:
        'UCP-Agent is missing, is not an RFC 8941 dictionary, or its `profile` is not an https URL.',
    },
    not_found: {
      status: 404,
      severity: 'unrecoverable',
      description: 'No checkout session has this id.',
      message: 'No checkout session with id {id}.',
    },
    route_not_found: {
      status: 404,
      severity: 'unrecoverable',
      description: 'No UCP operation exists at this method and path.',
      message: 'No UCP operation {method} {path}.',
    },
    method_not_allowed: {
      status: 405,
      severity: 'unrecoverable',
      description:
        'The path exists but does not serve this method; the Allow header lists the methods it serves.',
      message: '{path} does not serve {method}; it serves {allow}.',
    },
    checkout_not_modifiable: {
      status: 409,
      severity: 'unrecoverable',
      description:
        'The session is completed or canceled (an expired session is canceled) and can no longer change.',
      message: 'Checkout session {id} is {status} and can no longer change.',
    },
    idempotency_conflict: {
      status: 409,
      severity: 'unrecoverable',
      description: 'The Idempotency-Key was already used with a different request.',
      message: 'Idempotency-Key has already been used with a different request.',
    },
    idempotency_in_flight: {
      status: 409,
      severity: 'recoverable',
      description:
        'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.',
      message: 'A request with this Idempotency-Key is currently being processed.',
    },
    payload_too_large: {
      status: 413,
      severity: 'recoverable',
      description: 'The body is larger than the configured limit.',
    },
    uri_too_long: {
      status: 414,
      severity: 'unrecoverable',
      description: 'A path segment is longer than the router accepts (100 characters).',
      message: 'A path segment is longer than 100 characters.',
    },
    unsupported_media_type: {
      status: 415,
      severity: 'recoverable',
      description: 'The body must be application/json.',
    },
    profile_malformed: {
      status: 422,
      severity: 'unrecoverable',
      description: 'The agent profile named in UCP-Agent is not JSON or not a UCP profile.',
    },
    version_unsupported: {
      status: 422,
      severity: 'unrecoverable',
      description: "The agent profile's UCP version is not one Colony serves (2026-01-23, 2026-04-08).",
    },
    profile_unreachable: {
      status: 424,
      severity: 'recoverable',
      description:
        'The agent profile could not be fetched (timeout, non-2xx answer, redirect, private address).',
    },
    rate_limited: {
      status: 429,
      severity: 'recoverable',
      description:
        'More than the checkout budget (60 requests a minute per address, ACP and UCP together); retry after Retry-After seconds.',
      message: 'Rate limit of {limit} checkout requests per minute exceeded; retry after {seconds} seconds.',
    },
    internal_error: {
      status: 500,
      severity: 'recoverable',
      description: 'An unexpected error; the Request-Id names it in the server logs.',
      message: 'An unexpected error occurred.',
      expose: false,
    },
    service_unavailable: {
      status: 503,
      severity: 'recoverable',
      description: 'A dependency (the database) is not reachable; retry after Retry-After seconds.',
      message: 'A dependency is not reachable; retry after {seconds} seconds.',
    },
    request_timeout: {
      status: 408,
      severity: 'recoverable',
      description: "The request did not arrive within the server's bound; the connection is closed.",
      message: 'The request did not arrive in time.',
    },
    header_fields_too_large: {
      status: 431,
      severity: 'unrecoverable',
      description: 'The request has too many or too large header fields.',
      message: 'The request has too many or too large header fields.',
    },
    shutting_down: {
      status: 503,
      severity: 'recoverable',
      description: 'The server is shutting down; retry after Retry-After seconds (another replica answers).',
      message: 'The server is shutting down; retry after {seconds} seconds.',
    },
    capabilities_incompatible: {
      status: 200,
      severity: 'unrecoverable',
      description:
        'The agent profile offers no checkout capability version Colony serves: a business outcome, so 200 with `ucp.status` error.',
    },
  } satisfies Record<string, UcpErrorSpec>,
  { framework: { malformed_body: 'invalid_json' } },
);

export const ucpErrorCatalogue = ucpErrors.entries;
export type UcpErrorCode = keyof typeof ucpErrorCatalogue;

export class UcpError extends CatalogueError<UcpErrorCode> {
  override readonly name = 'UcpError';
  readonly path: string | undefined;
  /** Set when the error is answered at a version other than the request's (a failed negotiation). */
  readonly version: UcpVersion | undefined;

  constructor(
    code: UcpErrorCode,
    message: string,
    extra: { path?: string; headers?: Record<string, string>; version?: UcpVersion } = {},
  ) {
    super(ucpErrors, code, message, extra.headers);
    this.path = extra.path;
    this.version = extra.version;
  }
}

export function ucpErrorBody(
  err: UcpError,
  version: UcpVersion = CURRENT_UCP_VERSION,
  continueUrl?: string,
): UcpErrorResponse {
  const message: UcpErrorMessage = {
    type: 'error',
    code: err.code,
    content: err.message,
    severity: ucpErrorCatalogue[err.code].severity,
  };
  if (err.path) message.path = err.path;
  return {
    ucp: { version: err.version ?? version, status: 'error' as const },
    messages: [message],
    ...(continueUrl ? { continue_url: continueUrl } : {}),
  };
}
