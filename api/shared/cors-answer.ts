// What to answer a browser's cross-origin request under a CORS policy: pure, no Fastify. Never with
// credentials: every Colony credential that works cross-origin is a bearer token the page already holds.

/** Who may read a scope's answers from a browser: any origin, or the origins on an allow-list. */
export type BrowserPolicy = { readonly origins: 'any' } | { readonly origins: readonly string[] };

export const ANY_ORIGIN: BrowserPolicy = { origins: 'any' };

/** The allow-list policy; `*` on the list (COLONY_ALLOWED_ORIGINS=*) allows every origin. */
export function allowListed(origins: readonly string[]): BrowserPolicy {
  return origins.includes('*') ? ANY_ORIGIN : { origins };
}

/**
 * Whether a request may come from `origin` (the raw `Origin` header). No header means no browser
 * context to protect and passes; otherwise the header must equal a listed origin byte for byte, so
 * `http://localhost:3000.evil.test`, another scheme or another port never match, nor does `null`.
 */
export function originAllowed(policy: BrowserPolicy, origin: string | undefined): boolean {
  if (origin === undefined) return true;
  return policy.origins === 'any' || policy.origins.includes(origin);
}

/** Request headers browsers may send: those of /api/v1, OAuth, MCP (Streamable HTTP), ACP and UCP. */
export const ALLOWED_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Accept-Language',
  'X-API-Key',
  'X-Request-Id',
  'Idempotency-Key',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
  'API-Version',
  'Request-Id',
  'Signature',
  'Signature-Input',
  'Content-Digest',
  'Timestamp',
  'UCP-Agent',
].join(', ');

/** Response headers a page may read besides the CORS-safelisted ones. */
export const EXPOSED_RESPONSE_HEADERS = [
  'WWW-Authenticate',
  'Location',
  'Link',
  'ETag',
  'Retry-After',
  'X-Request-Id',
  'Request-Id',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'API-Version',
  'Idempotency-Key',
  'Idempotency-Replayed',
  'Idempotent-Replayed',
  'RateLimit',
  'RateLimit-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
].join(', ');

export const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/** Browsers cache a preflight at most this long (Chromium caps it at two hours). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

export interface CrossOriginRequest {
  method: string;
  origin: string | undefined;
  /** `Access-Control-Request-Method`: present on a preflight only. */
  requestMethod: string | undefined;
}

export interface CorsAnswer {
  /** A preflight this policy answers with 204 and `headers`, before anything else runs. */
  preflight: boolean;
  headers: Record<string, string>;
}

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': ALLOWED_METHODS,
  'access-control-allow-headers': ALLOWED_REQUEST_HEADERS,
  'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
};
const EXPOSE = { 'access-control-expose-headers': EXPOSED_RESPONSE_HEADERS };
// The answers on every /api/v1 read, built once. Without an Origin no browser is asking across origins, so
// the CORS headers are left off (they cost each answer time); Vary tells a shared cache the two differ.
const ANY_ORIGIN_ANSWER: CorsAnswer = {
  preflight: false,
  headers: { 'access-control-allow-origin': '*', ...EXPOSE, vary: 'Origin' },
};
const NO_BROWSER_ANSWER: CorsAnswer = { preflight: false, headers: { vary: 'Origin' } };

/**
 * The CORS headers for `request` under `policy`. Any-origin answers carry `*` to every request with an
 * Origin; an allow-list answers each allowed Origin with itself (and nothing to others). Both vary by Origin.
 */
export function corsAnswer(policy: BrowserPolicy, request: CrossOriginRequest): CorsAnswer {
  const { origin } = request;
  const isPreflight =
    request.method === 'OPTIONS' && origin !== undefined && request.requestMethod !== undefined;
  if (policy.origins === 'any') {
    if (origin === undefined) return NO_BROWSER_ANSWER;
    if (!isPreflight) return ANY_ORIGIN_ANSWER;
    return { preflight: true, headers: { 'access-control-allow-origin': '*', ...PREFLIGHT_HEADERS } };
  }
  if (origin === undefined || !originAllowed(policy, origin))
    return { preflight: false, headers: { vary: 'Origin' } };
  const headers = { vary: 'Origin', 'access-control-allow-origin': origin };
  return isPreflight
    ? { preflight: true, headers: { ...headers, ...PREFLIGHT_HEADERS } }
    : { preflight: false, headers: { ...headers, ...EXPOSE } };
}
