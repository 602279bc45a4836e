// Requests Node's HTTP parser refused before Fastify saw them. A method it does not know (HPE_INVALID_METHOD)
// still has a readable path, so it gets the 405 or 404 any other unserved method gets, in the path's format;
// the rest keep Fastify's answers (408 on a timeout, 431 on oversized headers, 400 otherwise).
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorFormat } from './error-formats.ts';
import type { FinishedResponse } from './shared/finished-response.ts';
import { noRoute } from './shared/framework-errors.ts';
import { requestIdFrom } from './shared/request-id.ts';
import { surfaceOfPath } from './shared/surface-of-path.ts';

// Node hands the bytes it read as a Buffer (Fastify's type says otherwise).
type ClientError = Error & { code?: string; rawPacket?: unknown };

const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[^\s?]*)\S* HTTP\/1\.[01]\r?\n/;

/** The 405 or 404 for a method Node could not parse, or undefined when the request line is unreadable. */
export function unknownMethodAnswer(
  app: FastifyInstance,
  baseUrl: string,
  rawPacket: unknown,
): FinishedResponse | undefined {
  const line = REQUEST_LINE.exec(Buffer.isBuffer(rawPacket) ? rawPacket.toString('latin1') : '');
  if (!line?.[1] || !line[2]) return undefined;
  const [method, path] = [line[1], line[2]];
  const format = errorFormat(surfaceOfPath(path));
  const request = { method, url: path } as FastifyRequest;
  const requestId = requestIdFrom({ headers: {} } as IncomingMessage);
  const served = app.routeTable?.methodsAt(path) ?? [];
  return format.render(noRoute(format.catalogue, request, served), { baseUrl, path, requestId, headers: {} });
}

function fastifyDefault(err: ClientError): FinishedResponse {
  const [statusCode, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Client Timeout']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Exceeded maximum allowed HTTP header size']
        : [400, 'Client Error'];
  const body = JSON.stringify({ error: STATUS_CODES[statusCode], message, statusCode });
  return { statusCode, headers: { 'content-type': 'application/json' }, body };
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
      fastifyDefault(err);
    if (socket.writable) socket.write(rawHttp(answer));
    socket.destroy(err);
  };
}
