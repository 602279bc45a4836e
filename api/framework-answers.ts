// What the server answers before or outside any surface's own handlers: a URL the router cannot read, a path
// segment over the limit, a method or path nothing serves (405 with Allow, or 404), a method Node cannot even
// parse, and every request that arrives while the server shuts down. Each in the format of the path's surface.
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import { type ErrorAnswer, type ErrorFormat, errorFormat, type RequestFacts } from './error-formats.ts';
import { messageFor } from './shared/error-catalogue.ts';
import type { FinishedResponse } from './shared/finished-response.ts';
import { frameworkError, logMapped, noRoute, pathOf } from './shared/framework-errors.ts';
import { ProblemError } from './shared/problem.ts';
import { collectRoutes, servedMethods } from './shared/route-table.ts';
import { surfaceOfPath } from './shared/surface-of-path.ts';
import { unparsedRequestHandler } from './unparsed-requests.ts';

/** How long a client that met a closing server should wait; by then another replica (or this one) answers. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

const formatOf = (request: FastifyRequest): ErrorFormat => errorFormat(surfaceOfPath(pathOf(request)));

function send(reply: FastifyReply, r: FinishedResponse): FastifyReply {
  return reply.code(r.statusCode).headers(r.headers).send(r.body);
}

export interface FrameworkAnswers {
  /** For the Fastify constructor: the router's bad URL and over-long segment. */
  frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']>;
  /** For the Fastify constructor: a request Node's parser refused (an unknown method, a broken line). */
  clientErrorHandler: NonNullable<FastifyServerOptions['clientErrorHandler']>;
  /**
   * First thing on a new instance: its route table, the 503 while closing, the root not-found and error
   * handlers. Returns whether the instance is closing (set from its preClose hook on).
   */
  install(app: FastifyInstance): () => boolean;
}

export function frameworkAnswers(baseUrl: string): FrameworkAnswers {
  const facts = (request: FastifyRequest): RequestFacts => ({
    baseUrl,
    path: pathOf(request),
    requestId: request.id,
    headers: request.headers,
  });
  const answer = (request: FastifyRequest, reply: FastifyReply, pick: (f: ErrorFormat) => ErrorAnswer) => {
    const format = formatOf(request);
    // Set here too: the router's errors and the 503 while closing come before the root hook that sets it.
    reply.header('x-request-id', request.id);
    return send(reply, format.render(pick(format), facts(request)));
  };
  const noRouteAnswer = (request: FastifyRequest, reply: FastifyReply) =>
    answer(request, reply, (f) => noRoute(f.catalogue, request, servedMethods(request)));
  const shuttingDown = (f: ErrorFormat): ErrorAnswer => {
    const seconds = SHUTDOWN_RETRY_AFTER_SECONDS;
    const code = f.catalogue.framework.shutting_down;
    const message = messageFor(f.catalogue, code, { seconds });
    return { code, message, headers: { 'retry-after': String(seconds), connection: 'close' } };
  };

  return {
    frameworkErrors(err, request, reply) {
      answer(request, reply, (f) => {
        const mapped = frameworkError(f.catalogue, err);
        if (mapped.kind === 'internal_error') request.log.error({ err }, 'router failed');
        return mapped;
      });
    },
    clientErrorHandler: unparsedRequestHandler(baseUrl),
    install(app) {
      collectRoutes(app);
      let closing = false;
      app.addHook('preClose', () => {
        closing = true;
      });
      // Fastify's own return503OnClosing answers in its JSON; this answers first, in the surface's format.
      app.addHook('onRequest', (request, reply, done) => {
        if (closing) answer(request, reply, shuttingDown);
        else done();
      });
      app.setNotFoundHandler(noRouteAnswer);
      app.setErrorHandler((err: FastifyError, request, reply) =>
        answer(request, reply, (f) => {
          if (err instanceof ProblemError && f.catalogue.entries[err.code]) {
            const { code, detail, errors, headers, extensions } = err;
            return { code, message: detail, fields: errors, headers, extensions };
          }
          const mapped = frameworkError(f.catalogue, err);
          logMapped(request, mapped.kind, err, 'unhandled error');
          // Nothing serves the request, so what its body was like does not matter (a QUERY without a type).
          if (mapped.kind !== 'internal_error' && request.is404) {
            return noRoute(f.catalogue, request, servedMethods(request));
          }
          return mapped;
        }),
      );
      return () => closing;
    },
  };
}
