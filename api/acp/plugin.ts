// The ACP surface (/checkout_sessions): API-Version negotiation, Request-Id echo, the shared checkout rate
// limit and ACP error objects for everything, including bodies that fail to parse and unknown routes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerFallbacks } from '../commerce/route-fallbacks.ts';
import { lenientJsonParser, sendFinished } from '../commerce/send-response.ts';
import { rateLimitHook } from '../shared/rate-limit/rate-limit-hook.ts';
import { AcpError, type AcpErrorCode } from './errors.ts';
import { acpErrorResponse, registerAcpRoutes } from './routes.ts';
import { LATEST_ACP_VERSION, parseAcpVersion } from './versions.ts';

// A caller's Request-Id is echoed when it is safe to put in a header; otherwise ours stands in.
const SAFE_REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

function fastifyErrorCode(err: FastifyError): AcpErrorCode {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'payload_too_large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported_media_type';
  }
  if (err instanceof SyntaxError || err.statusCode === 400) return 'invalid_json';
  if (err.statusCode === 413) return 'payload_too_large';
  if (err.statusCode === 415) return 'unsupported_media_type';
  return 'processing_error';
}

function sendAcpError(request: FastifyRequest, reply: FastifyReply, err: AcpError): FastifyReply {
  return sendFinished(reply, acpErrorResponse(err, request.acpVersion ?? LATEST_ACP_VERSION));
}

export async function acpPlugin(app: FastifyInstance): Promise<void> {
  const { commerce, metrics } = app.colony;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, lenientJsonParser);
  app.decorateRequest('acpVersion', LATEST_ACP_VERSION);
  // ACP is described by its own published OpenAPI documents, not by Colony's /openapi.json.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });

  app.addHook('onRequest', (request, reply, done) => {
    const given = request.headers['request-id'];
    reply.header('request-id', typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : request.id);
    const version = parseAcpVersion(request.headers['api-version']);
    if (typeof version === 'object') {
      reply.header('api-version', LATEST_ACP_VERSION);
      sendAcpError(
        request,
        reply,
        new AcpError(
          'unsupported_version',
          `API-Version '${version.unsupported}' is not supported. Supported versions: 2025-09-29, 2025-12-12, 2026-01-16, 2026-01-30, 2026-04-17.`,
          { param: 'API-Version' },
        ),
      );
      return;
    }
    request.acpVersion = version;
    reply.header('api-version', version);
    done();
  });
  app.addHook(
    'onRequest',
    rateLimitHook({
      limiter: commerce.limiter,
      onExceeded: (request, reply, decision) => {
        metrics.rateLimited.labels('checkout').inc();
        return sendAcpError(
          request,
          reply,
          new AcpError(
            'rate_limited',
            `Rate limit of ${decision.limit} checkout requests per minute exceeded; retry after ${decision.resetSeconds} seconds.`,
          ),
        );
      },
    }),
  );

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof AcpError) return sendAcpError(request, reply, err);
    const code = fastifyErrorCode(err);
    if (code === 'processing_error') request.log.error({ err }, 'unhandled error on ACP');
    const message = code === 'processing_error' ? 'An unexpected error occurred.' : err.message;
    return sendAcpError(request, reply, new AcpError(code, message));
  });
  registerAcpRoutes(app);
  // The not-found handler belongs to the whole server, so unknown ACP paths and methods get their own routes.
  const unknown = async (request: FastifyRequest) => {
    throw new AcpError('route_not_found', `No ACP operation ${request.method} ${request.url.split('?')[0]}.`);
  };
  registerFallbacks(app, '/checkout_sessions', ['POST'], unknown);
  registerFallbacks(app, '/checkout_sessions/:id', ['GET', 'POST'], unknown);
  registerFallbacks(app, '/checkout_sessions/:id/complete', ['POST'], unknown);
  registerFallbacks(app, '/checkout_sessions/:id/cancel', ['POST'], unknown);
  registerFallbacks(app, '/checkout_sessions/:id/*', [], unknown);
  registerFallbacks(app, '/agentic_commerce/*', [], unknown);
}
