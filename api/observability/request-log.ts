// One log line per request: Fastify's "incoming request" and "request completed" pair folded into one.
import { hostname } from 'node:os';
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { setBounded } from '../shared/bounded-cache.ts';

// pino's and the lazy child's own check; Fastify's logger type does not declare it, and its null
// logger (logger: false) lacks it, which is fine: everything that logger is given goes nowhere.
type Checkable = { isLevelEnabled?: (level: string) => boolean };
const infoEnabled = (log: FastifyBaseLogger) => (log as Checkable).isLevelEnabled?.('info') ?? true;

// Tokens must never reach the logs, including ones a client wrongly put in the query string, nor
// the authorization codes providers send to /connect/callback.
export const redactUrl = (url: string): string =>
  url.includes('=') ? url.replace(/([?&](?:access_token|token|code)=)[^&]*/gi, '$1[REDACTED]') : url;

/** Where request lines can go without pino: the stdout batch (log-destination.ts). */
export interface RequestLineQueue {
  queue(line: string): void;
}

export interface OneLinePerRequestOptions {
  /** Fastify's default is reqId. */
  requestIdLogLabel?: string;
  disableRequestLogging?: (request: FastifyRequest) => boolean;
  /**
   * The queue of the destination the server's own pino logger writes to (loggerOptions() in
   * server.ts). With it, the request line is formatted here and queued directly; without it (a
   * logger of the caller's), it goes through that logger.
   */
  requestLines?: RequestLineQueue | undefined;
}

/**
 * The request line as pino would serialise it with loggerOptions() (level, epoch-ms time, pid and
 * hostname, the fields, then msg), byte for byte: a test holds the two to each other. pino's generic
 * path (serializers, redaction, key escaping) costs several µs a request for six fields whose keys
 * are fixed and whose values are already safe, which at the default level is most of logging's cost.
 *
 * A line is a few pieces, most made once and reused: its start for each millisecond, and the method,
 * status and address parts for each value seen. Written as one template literal a line was a rope of
 * some sixteen pieces, which V8 walks piece by piece when the batch is joined; formatting and joining
 * took 0.37–0.40 µs a line that way and 0.14 µs this way (docs/decisions.md).
 */
export function requestLineFormatter(requestIdLabel: string, pid = process.pid, host = hostname()) {
  const head = `{"level":30,"time":`;
  const bindings = `,"pid":${pid},"hostname":${JSON.stringify(host)},${JSON.stringify(requestIdLabel)}:`;
  let time = Number.NaN;
  let start = '';
  const methods = new PieceCache((method: string) => `,"method":${JSON.stringify(method)},"url":`);
  const statuses = new PieceCache((status: number) => `,"statusCode":${status},"responseTime":`);
  const ends = new PieceCache(
    (address: string | undefined) =>
      `${address === undefined ? '' : `,"remoteAddress":${JSON.stringify(address)}`},"msg":"request completed"}\n`,
  );
  return (f: RequestLineFields, now: number): string => {
    if (now !== time) {
      time = now;
      start = `${head}${now}${bindings}`;
    }
    return (
      start +
      JSON.stringify(f.requestId) +
      methods.get(f.method) +
      JSON.stringify(f.url) +
      statuses.get(f.statusCode) +
      f.responseTime +
      ends.get(f.remoteAddress)
    );
  };
}

/** Pieces by the value they are made from. Methods and statuses are few; client addresses are not. */
class PieceCache<K> {
  private readonly make: (key: K) => string;
  private readonly pieces = new Map<K, string>();

  constructor(make: (key: K) => string) {
    this.make = make;
  }

  get(key: K): string {
    let piece = this.pieces.get(key);
    if (piece === undefined) {
      piece = this.make(key);
      setBounded(this.pieces, key, piece, MAX_PIECES);
    }
    return piece;
  }
}

const MAX_PIECES = 1024;

export interface RequestLineFields {
  requestId: string;
  method: string;
  url: string;
  statusCode: number;
  responseTime: number;
  remoteAddress: string | undefined;
}

/**
 * At the default level Fastify writes two lines per request and builds a child logger for them.
 * This controller writes one, when the response is done, with what an operator searches by: method,
 * URL, status, duration, request id and client address. Error, 404 and stream lines stay Fastify's own.
 */
export class OneLinePerRequest extends LogController {
  private readonly lines: RequestLineQueue | undefined;
  private readonly format: ReturnType<typeof requestLineFormatter>;

  constructor(opts: OneLinePerRequestOptions = {}) {
    super(opts);
    this.lines = opts.requestLines;
    this.format = requestLineFormatter(this.requestIdLogLabel);
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    if (error) {
      reply.log.error({ ...this.labelled(this.fields(request, reply)), err: error }, 'request errored');
      return;
    }
    // The route's level decides, before the line is built: below info it costs nothing. A request
    // that logs nothing else never has its own child logger built.
    if (!infoEnabled(reply.log)) return;
    const fields = this.fields(request, reply);
    if (this.lines) this.lines.queue(this.format(fields, Date.now()));
    else request.server.log.info(this.labelled(fields), 'request completed');
  }

  private fields(request: FastifyRequest, reply: FastifyReply): RequestLineFields {
    return {
      requestId: request.id,
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      // As Fastify's "incoming request" line had it: who asked (behind COLONY_TRUST_PROXY, the client).
      remoteAddress: request.ip,
    };
  }

  /** The fields under the configured request-id label, for a line that goes through pino. */
  private labelled({ requestId, ...rest }: RequestLineFields) {
    return { [this.requestIdLogLabel]: requestId, ...rest };
  }
}
