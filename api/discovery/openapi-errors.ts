// Pure: the errors the shared layers of a JSON API scope (/api/v1, /api/snapshots) answer, declared on
// every operation of the OpenAPI document, whether or not its route lists them: body parsing (400,
// 413, 415), the router (404, 414), bearer authentication (401 with its challenge, 403), the request
// budget (429 with Retry-After and the rate-limit headers), the error handler (500) and shutdown
// (503). All are application/problem+json.
const JSON_API = /^\/api\/(v1|snapshots)(\/|$)/;
/** Methods whose bodies Fastify reads (and so can refuse), whether or not the route declares one. */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

interface Header {
  required: boolean;
  description: string;
  schema: { type: string; pattern?: string };
}
interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, unknown>;
}
interface Operation {
  responses?: Record<string, Response>;
  security?: unknown[];
  parameters?: { in: string }[];
}
type Paths = Record<string, Record<string, Operation>>;

interface Rule {
  status: number;
  description: string;
  applies(method: string, op: Operation): boolean;
  headers?: Record<string, Header>;
}

const always = () => true;
const secured = (_m: string, op: Operation) => (op.security?.length ?? 0) > 0;
const takesBody = (method: string) => BODY_METHODS.has(method);
const seconds = (description: string): Header => ({
  required: true,
  description,
  schema: { type: 'string', pattern: '^[0-9]+$' },
});

export interface ScopeLimits {
  /** The body limit (COLONY_BODY_LIMIT_BYTES). */
  bodyLimitBytes: number;
  /** The router refuses longer path parameters with 414 (Fastify's maxParamLength). */
  maxParamLength: number;
}

function rules({ bodyLimitBytes, maxParamLength }: ScopeLimits): Rule[] {
  return [
    {
      status: 400,
      description: 'Malformed request: a parameter, header or the body failed validation',
      applies: always,
    },
    {
      status: 401,
      description: 'Missing, invalid or revoked bearer token',
      applies: secured,
      headers: {
        'WWW-Authenticate': {
          required: true,
          description: 'RFC 6750 Bearer challenge naming the protected-resource metadata',
          schema: { type: 'string', pattern: '^Bearer ' },
        },
      },
    },
    { status: 403, description: 'Insufficient scope, or not allowed on this resource', applies: secured },
    { status: 404, description: 'Not found', applies: always },
    { status: 413, description: `Request body larger than ${bodyLimitBytes} bytes`, applies: takesBody },
    {
      status: 414,
      description: `A path parameter longer than ${maxParamLength} characters`,
      applies: (_m, op) => (op.parameters ?? []).some((p) => p.in === 'path'),
    },
    { status: 415, description: 'The body is not application/json', applies: takesBody },
    {
      status: 429,
      description: 'Rate limit exceeded; retry after Retry-After seconds',
      applies: always,
      headers: {
        'Retry-After': seconds('Seconds until a request is allowed again'),
        'X-RateLimit-Limit': seconds('Requests allowed per window'),
        'X-RateLimit-Remaining': seconds('Requests left in this window'),
        'X-RateLimit-Reset': seconds('Seconds until the window resets'),
      },
    },
    { status: 500, description: 'Unexpected server error', applies: always },
    {
      status: 503,
      description: 'Shutting down, or a dependency is not configured or not reachable',
      applies: always,
    },
  ];
}

const problemContent = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

/** Adds each missing standard error to `op`; a route's own entry keeps its words but gains the headers. */
function declare(op: Operation, method: string, all: Rule[]): Operation {
  const responses = { ...op.responses };
  for (const rule of all) {
    if (!rule.applies(method, op)) continue;
    const own = responses[rule.status];
    responses[rule.status] = {
      description: own?.description ?? `${rule.description} (application/problem+json)`,
      ...(rule.headers ? { headers: { ...own?.headers, ...rule.headers } } : {}),
      content: own?.content ?? problemContent,
    };
  }
  return { ...op, responses };
}

export function withStandardProblems<D extends { paths?: object }>(doc: D, limits: ScopeLimits): D {
  if (!doc.paths) return doc;
  const all = rules(limits);
  const paths = Object.fromEntries(
    Object.entries(doc.paths as Paths).map(([path, item]) => [
      path,
      JSON_API.test(path)
        ? Object.fromEntries(Object.entries(item).map(([method, op]) => [method, declare(op, method, all)]))
        : item,
    ]),
  );
  return { ...doc, paths };
}
