// The guards every listener installs at its root, before any surface's hooks: a request with too many
// header fields, U+0000 in its path, query or body, or a body nested too deep is refused here, once for
// all routes. Refusals are validation errors, so each surface's error handler answers its own 400.
import type { ServerOptions } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { type InputFault, inspectBody, MAX_HEADER_COUNT, nulInUrl } from './input-limits.ts';

/** A request refused by the guards; framework-errors.ts maps it like any failed validation. */
export class InputRefusedError extends Error {
  readonly statusCode = 400;
  readonly code = 'COLONY_INPUT_REFUSED';
  readonly validation: { instancePath: string; message: string }[];
  readonly validationContext: InputFault['part'];

  constructor(fault: InputFault) {
    const where = fault.part === 'querystring' ? 'query' : fault.part;
    super(`${where}${fault.pointer.replaceAll('/', '.')}: ${fault.message}`);
    this.validation = [{ instancePath: fault.pointer, message: fault.message }];
    this.validationContext = fault.part;
  }
}

/** More header fields than MAX_HEADER_COUNT; framework-errors.ts maps its status to header_fields_too_large. */
class TooManyHeaderFieldsError extends Error {
  readonly statusCode = 431;
  readonly code = 'COLONY_TOO_MANY_HEADER_FIELDS';
  constructor() {
    super(`More than ${MAX_HEADER_COUNT} header fields`);
  }
}

// Fastify never parses a body for these methods.
const BODYLESS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

const refuseBadBody: preValidationHookHandler = (request, _reply, done) => {
  const fault = request.body === undefined ? undefined : inspectBody(request.body);
  done(fault ? new InputRefusedError(fault) : undefined);
};

/**
 * The per-request guard: the error refusing too many header fields (431) or U+0000 in the URL (the
 * surface's 400), if any. It is meant to run inside the listener's first onRequest hook, so the read
 * path gains no hook step.
 */
export function hostileRequestError(request: FastifyRequest, reply: FastifyReply): Error | undefined {
  if (request.raw.rawHeaders.length > 2 * MAX_HEADER_COUNT) {
    // Answered by the surface's error handler, in its format; the connection is not worth keeping.
    reply.header('connection', 'close');
    return new TooManyHeaderFieldsError();
  }
  const fault = nulInUrl(request.url);
  return fault ? new InputRefusedError(fault) : undefined;
}

/**
 * Installs the rest of the guards on a listener's root instance, before any surface is registered: the
 * header-count limit, and the body step on every route that can take a body (GET routes pay nothing).
 */
export function installInputGuards(app: FastifyInstance): void {
  // Node stops parsing after this many fields, so a flood costs nothing and an excess is still visible.
  app.server.maxHeadersCount = MAX_HEADER_COUNT + 1;
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((m) => BODYLESS.has(m))) return;
    route.preValidation = [refuseBadBody, ...[route.preValidation ?? []].flat()];
  });
}

/**
 * The listener options that bound a slow client: the whole request (headers and body) must arrive within
 * `requestTimeoutMs` (0: never times out), or Node answers 408 and closes the connection. The headers
 * get no longer than the whole, and Node looks for overdue requests often enough to honour a short bound.
 */
export function slowClientOptions(requestTimeoutMs: number): { requestTimeout: number; http: ServerOptions } {
  if (requestTimeoutMs === 0) return { requestTimeout: 0, http: {} };
  const headersTimeout = Math.min(60_000, requestTimeoutMs);
  const connectionsCheckingInterval = Math.min(30_000, Math.max(100, Math.floor(requestTimeoutMs / 4)));
  return {
    requestTimeout: requestTimeoutMs,
    http: { requestTimeout: requestTimeoutMs, headersTimeout, connectionsCheckingInterval },
  };
}
