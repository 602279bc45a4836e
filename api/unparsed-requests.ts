// Requests Node's HTTP parser refused before Fastify saw them. A method it does not know (HPE_INVALID_METHOD)
// still has a readable path, so it gets the 405 or 404 any other unserved method gets, in the path's format;
// the rest (408 when the request did not arrive in time, 431 on oversized headers, 400 otherwise) are
// answered in the format of the path when the request line can be read, else as problem+json.
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorFormat } from './error-formats.ts';
import { messageFor } from './shared/error-catalogue.ts';
import type { FinishedResponse } from './shared/finished-response.ts';
import { noRoute } from './shared/framework-errors.ts';
import { requestIdFrom } from './shared/request-id.ts';
import { surfaceOfPath } from './shared/surface-of-path.ts';

// Node hands the bytes it read as a Buffer (Fastify's type says otherwise).
type ClientError = Error & { code?: string; rawPacket?: unknown };

const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[^\s?]*)\S* HTTP\/1\.[01]\r?\n/;

/** The method and path of the request line in the bytes Node read, when they can be read. */
function requestLineOf(rawPacket: unknown): { method: string; path: string } | undefined {
  const line = REQUEST_LINE.exec(Buffer.isBuffer(rawPacket) ? rawPacket.toString('latin1') : '');
  return line?.[1] && line[2] ? { method: line[1], path: line[2] } : undefined;
}

/** What a format needs to know of a request Fastify never saw: no headers, a fresh request id. */
const factsOf = (baseUrl: string, path: string) => ({
  baseUrl,
  path,
  requestId: requestIdFrom({ headers: {} } as IncomingMessage),
  headers: {},
});

/** The 405 or 404 for a method Node could not parse, or undefined when the request line is unreadable. */
export function unknownMethodAnswer(
  app: FastifyInstance,
  baseUrl: string,
  rawPacket: unknown,
): FinishedResponse | undefined {
  const line = requestLineOf(rawPacket);
  if (!line) return undefined;
  const format = errorFormat(surfaceOfPath(line.path));
  const request = { method: line.method, url: line.path } as FastifyRequest;
  const served = app.routeTable?.methodsAt(line.path) ?? [];
  return format.render(noRoute(format.catalogue, request, served), factsOf(baseUrl, line.path));
}

/** Any other refusal, in the format of the path when the bytes Node read name one (else problem+json). */
function unreadableAnswer(baseUrl: string, err: ClientError): FinishedResponse {
  const line = requestLineOf(err.rawPacket);
  const path = line?.path ?? '/';
  const format = errorFormat(line ? surfaceOfPath(path) : 'problem');
  const { catalogue } = format;
  const answer =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? catalogue.framework.request_timeout
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? catalogue.framework.header_fields_too_large
        : undefined;
  const facts = factsOf(baseUrl, path);
  if (answer) return format.render({ code: answer, message: messageFor(catalogue, answer) }, facts);
  const code = catalogue.framework.invalid_request;
  return format.render({ code, message: 'The request could not be parsed as HTTP/1.1.' }, facts);
}

function rawHttp(r: FinishedResponse): string {
  const headers = { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)), connection: 'close' };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${r.statusCode} ${STATUS_CODES[r.statusCode] ?? ''}\r\n${lines.join('')}\r\n${r.body}`;
}

/** Fastify's clientErrorHandler (bound to the instance): answers, then closes the connection. */
export function unparsedRequestHandler(baseUrl: string) {
  return function onClientError(this: FastifyInstance, err: ClientError, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const answer =
      (err.code === 'HPE_INVALID_METHOD' ? unknownMethodAnswer(this, baseUrl, err.rawPacket) : undefined) ??
      unreadableAnswer(baseUrl, err);
    if (socket.writable) socket.write(rawHttp(answer));
    socket.destroy(err);
  };
}
