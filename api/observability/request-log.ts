// One log line per request: Fastify's "incoming request" and "request completed" pair folded into one.
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';

// pino's and the lazy child's own check; Fastify's logger type does not declare it, and its null
// logger (logger: false) lacks it, which is fine: everything that logger is given goes nowhere.
type Checkable = { isLevelEnabled?: (level: string) => boolean };
const infoEnabled = (log: FastifyBaseLogger) => (log as Checkable).isLevelEnabled?.('info') ?? true;

// Tokens must never reach the logs, including ones a client wrongly put in the query string, nor
// the authorization codes providers send to /connect/callback.
export const redactUrl = (url: string): string =>
  url.includes('=') ? url.replace(/([?&](?:access_token|token|code)=)[^&]*/gi, '$1[REDACTED]') : url;

/**
 * At the default level Fastify writes two lines per request and builds a child logger for them.
 * This controller writes one, when the response is done, with what an operator searches by: method,
 * URL, status, duration, request id and client address. Error, 404 and stream lines stay Fastify's own.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    if (error) {
      reply.log.error({ ...this.line(request, reply), err: error }, 'request errored');
      return;
    }
    // The route's level decides, before the line is built: below info it costs nothing. The line goes
    // through the server's logger with the id as a field, so a request that logs nothing else never
    // has its own child logger built.
    if (infoEnabled(reply.log)) request.server.log.info(this.line(request, reply), 'request completed');
  }

  private line(request: FastifyRequest, reply: FastifyReply) {
    return {
      [this.requestIdLogLabel]: request.id,
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      // As Fastify's "incoming request" line had it: who asked (behind COLONY_TRUST_PROXY, the client).
      remoteAddress: request.ip,
    };
  }
}
