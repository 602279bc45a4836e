// Pure: which /mcp requests the shared, long-lived server answers, and how its answer is framed.
import {
  classifyInboundRequest,
  type JSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { ExchangeAnswer } from './multiplexed-transport.ts';

/**
 * Methods that read nothing a connection remembers (no handshake, log level or subscription), so a
 * server that has answered other callers answers them exactly as a fresh one would.
 */
const SHARED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'tools/list']);

type Headers = Record<string, string | string[] | undefined>;

const one = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

/** The protocol versions the SDK serves as 2025-era ones, asked once of its own classification. */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(
  SUPPORTED_PROTOCOL_VERSIONS.filter((protocolVersionHeader) => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const route = classifyInboundRequest({ httpMethod: 'POST', body, protocolVersionHeader });
    return route.kind === 'legacy' && route.reason === 'no-claim';
  }),
);

const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A cheap proof of what the SDK's classification would answer for the usual tool call, without its
 * three zod parses (about 4% of a recall's CPU, profiled): a request with the strict schema's four keys
 * only (so no response), "2.0", a string or safe-integer id and params without _meta (so no envelope
 * claim), under a 2025-era version header or none, and no 2026-era routing headers. What it cannot
 * prove goes to classifyInboundRequest; a unit test holds the two to the same verdict.
 */
export function plainLegacyRequest(headers: Headers, body: Record<string, unknown>): boolean {
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !(typeof version === 'string' && LEGACY_VERSIONS.has(version))) return false;
  if (headers['mcp-method'] !== undefined || headers['mcp-name'] !== undefined) return false;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return false;
  const { id, params } = body;
  if (body.jsonrpc !== '2.0' || typeof body.method !== 'string') return false;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  return params === undefined || (isPlainObject(params) && !Object.hasOwn(params, '_meta'));
}

/**
 * The request the shared server may answer: one 2025-era JSON-RPC request (the SDK's own
 * classification says legacy, no envelope claim) calling a shared method, from a client that
 * accepts the SSE answer and names a protocol version the SDK serves. Anything else (initialize,
 * notifications, batches, 2026-era requests and whatever the SDK's transport would refuse) goes to
 * the SDK's per-request entry, which answers it as before.
 */
export function sharedServerRequest(
  httpMethod: string,
  headers: Headers,
  body: unknown,
): JSONRPCRequest | undefined {
  // The cheap tests first: most requests that are not tool calls leave here.
  if (httpMethod !== 'POST' || !isPlainObject(body) || !SHARED_METHODS.has(String(body.method)))
    return undefined;
  const accept = one(headers.accept) ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (plainLegacyRequest(headers, body)) return body as unknown as JSONRPCRequest;
  const protocolVersionHeader = one(headers['mcp-protocol-version']);
  if (protocolVersionHeader !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersionHeader))
    return undefined;
  const mcpMethodHeader = one(headers['mcp-method']);
  const mcpNameHeader = one(headers['mcp-name']);
  const route = classifyInboundRequest({
    httpMethod,
    body,
    ...(protocolVersionHeader !== undefined ? { protocolVersionHeader } : {}),
    ...(mcpMethodHeader !== undefined ? { mcpMethodHeader } : {}),
    ...(mcpNameHeader !== undefined ? { mcpNameHeader } : {}),
  });
  // The SDK says no-claim only of a body its JSON-RPC request schema accepted: no second check here.
  return route.kind === 'legacy' && route.reason === 'no-claim'
    ? (body as unknown as JSONRPCRequest)
    : undefined;
}

/** The headers the SDK's stateless transport answers a request with; the shared lane sends the same. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** The answer as the one SSE event the SDK's stateless transport would send. */
export function sseEvent(answer: ExchangeAnswer): string {
  return `event: message\ndata: ${JSON.stringify(answer)}\n\n`;
}
