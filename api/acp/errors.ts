// The one catalogue of ACP errors (docs/errors.md is checked against it) and the error object per snapshot.
import { type CatalogueEntry, CatalogueError, errorCatalogue } from '../shared/error-catalogue.ts';
import type { AcpVersion } from './versions.ts';
import { ACP_VERSIONS } from './versions.ts';

type AcpErrorType = 'invalid_request' | 'processing_error' | 'service_unavailable';

/** ACP's error `type` follows from the status: the request's fault, ours, or a dependency's. */
function acpErrorType(entry: CatalogueEntry): { type: AcpErrorType } {
  if (entry.status === 500) return { type: 'processing_error' };
  if (entry.status === 503) return { type: 'service_unavailable' };
  return { type: 'invalid_request' };
}

/** Malformed bodies are `invalid_json`, unexpected failures `processing_error`; the rest keep their names. */
export const acpErrors = errorCatalogue(
  {
    invalid_request: {
      status: 400,
      description: 'A header or body field is missing or has the wrong type; `param` is its JSONPath.',
    },
    invalid_json: { status: 400, description: 'The body is not valid JSON.' },
    invalid_item_id: {
      status: 400,
      description:
        'An item id is not in the catalog (`GET /api/v1/commerce/catalog` lists them); nothing was created.',
      message: 'No catalog item with id {ids}; GET /api/v1/commerce/catalog lists them.',
    },
    unsupported_version: {
      status: 400,
      description: 'API-Version names no supported snapshot; `supported_versions` lists them.',
      message:
        "API-Version '{given}' is not supported. Supported versions: 2025-09-29, 2025-12-12, 2026-01-16, 2026-01-30, 2026-04-17.",
    },
    idempotency_key_invalid: {
      status: 400,
      description: 'Idempotency-Key must be 1 to 255 visible characters.',
      message: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
    },
    session_not_ready: {
      status: 400,
      description:
        'complete was called while the cart cannot be bought (status not_ready_for_payment); its messages say why.',
      message: 'Checkout session {id} cannot be bought as it stands: {problems}',
    },
    delegated_payment_unsupported: {
      status: 400,
      description:
        'Delegated payment is not supported: no payment is taken through the API; the account owner pays at continue_url.',
      message:
        'Delegated payment is not supported: Colony takes no payment through the API. Complete the checkout session and send the account owner to its continue_url.',
    },
    not_found: {
      status: 404,
      description: 'No checkout session has this id.',
      message: 'No checkout session with id {id}.',
    },
    route_not_found: {
      status: 404,
      description: 'No ACP operation exists at this method and path.',
      message: 'No ACP operation {method} {path}.',
    },
    method_not_allowed: {
      status: 405,
      description:
        'The path exists but does not serve this method; the Allow header lists the methods it serves.',
      message: '{path} does not serve {method}; it serves {allow}.',
    },
    session_final: {
      status: 405,
      description: 'The session is completed, canceled or expired and can no longer change.',
      message: 'Checkout session {id} is {status} and can no longer change.',
    },
    idempotency_in_flight: {
      status: 409,
      description:
        'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.',
      message: 'A request with this Idempotency-Key is currently being processed.',
    },
    payload_too_large: {
      status: 413,
      description: 'The body is larger than the configured limit.',
    },
    uri_too_long: {
      status: 414,
      description: 'A path segment is longer than the router accepts (100 characters).',
      message: 'A path segment is longer than 100 characters.',
    },
    unsupported_media_type: {
      status: 415,
      description: 'The body must be application/json.',
    },
    idempotency_conflict: {
      status: 422,
      description: 'The Idempotency-Key was already used with a different request (body or API-Version).',
      message: 'Idempotency-Key has already been used with a different request body.',
    },
    rate_limited: {
      status: 429,
      description:
        'More than the checkout budget (60 requests a minute per address, ACP and UCP together); retry after Retry-After seconds.',
      message: 'Rate limit of {limit} checkout requests per minute exceeded; retry after {seconds} seconds.',
    },
    processing_error: {
      status: 500,
      description: 'An unexpected error; the Request-Id names it in the server logs.',
      message: 'An unexpected error occurred.',
      expose: false,
    },
    service_unavailable: {
      status: 503,
      description: 'A dependency (the database) is not reachable; retry after Retry-After seconds.',
      message: 'A dependency is not reachable; retry after {seconds} seconds.',
    },
    request_timeout: {
      status: 408,
      description: "The request did not arrive within the server's bound; the connection is closed.",
      message: 'The request did not arrive in time.',
    },
    header_fields_too_large: {
      status: 431,
      description: 'The request has too many or too large header fields.',
      message: 'The request has too many or too large header fields.',
    },
    shutting_down: {
      status: 503,
      description: 'The server is shutting down; retry after Retry-After seconds (another replica answers).',
      message: 'The server is shutting down; retry after {seconds} seconds.',
    },
  },
  {
    framework: { malformed_body: 'invalid_json', internal_error: 'processing_error' },
    derive: acpErrorType,
  },
);

export const acpErrorCatalogue = acpErrors.entries;
export type AcpErrorCode = keyof typeof acpErrorCatalogue;

/** A typed error any ACP handler may throw; the surface's error handler renders it for the request's version. */
export class AcpError extends CatalogueError<AcpErrorCode> {
  override readonly name = 'AcpError';
  readonly param: string | undefined;

  constructor(
    code: AcpErrorCode,
    message: string,
    extra: { param?: string; headers?: Record<string, string> } = {},
  ) {
    super(acpErrors, code, message, extra.headers);
    this.param = extra.param;
  }
}

export interface AcpErrorBody {
  type: AcpErrorType;
  code: AcpErrorCode;
  message: string;
  param?: string;
  supported_versions?: string[];
}

/** `supported_versions` exists only in the 2026-04-17 error object, which unknown versions are answered in. */
export function acpErrorBody(
  code: AcpErrorCode,
  message: string,
  version: AcpVersion,
  param?: string,
): AcpErrorBody {
  const body: AcpErrorBody = { type: acpErrorCatalogue[code].type, code, message };
  if (param !== undefined) body.param = param;
  if (code === 'unsupported_version' && version === '2026-04-17') body.supported_versions = [...ACP_VERSIONS];
  return body;
}
