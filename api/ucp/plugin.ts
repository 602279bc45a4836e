// The UCP surface (/ucp/v1): the shared checkout rate limit, UCP-Agent negotiation against the agent's
// profile, and UCP error responses for everything, including bodies that fail to parse and unknown routes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerFallbacks } from '../commerce/route-fallbacks.ts';
import { jsonResponse, lenientJsonParser, sendFinished } from '../commerce/send-response.ts';
import { rateLimitHook } from '../shared/rate-limit/rate-limit-hook.ts';
import { UcpError, type UcpErrorCode } from './errors.ts';
import { CapabilitiesIncompatible, negotiate } from './negotiate.ts';
import type { PlatformProfiles } from './platform-profile.ts';
import { registerUcpRoutes, ucpErrorResponse } from './routes.ts';
import { parseUcpAgent } from './ucp-agent.ts';

const SAFE_REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

function fastifyErrorCode(err: FastifyError): UcpErrorCode {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) return 'payload_too_large';
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.statusCode === 415)
    return 'unsupported_media_type';
  if (err instanceof SyntaxError || err.statusCode === 400) return 'invalid_json';
  return 'internal_error';
}

const send = (request: FastifyRequest, reply: FastifyReply, err: UcpError) =>
  sendFinished(reply, ucpErrorResponse(err, request));

export interface UcpPluginOptions {
  profiles: PlatformProfiles;
  allowInsecureProfiles: boolean;
  handlerSpecUrl: string;
}

export async function ucpPlugin(app: FastifyInstance, opts: UcpPluginOptions): Promise<void> {
  const { commerce, metrics } = app.colony;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, lenientJsonParser);
  app.decorateRequest('ucp', undefined);
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });

  app.addHook('onRequest', (request, reply, done) => {
    const given = request.headers['request-id'];
    reply.header('request-id', typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : request.id);
    done();
  });
  app.addHook(
    'onRequest',
    rateLimitHook({
      limiter: commerce.limiter,
      onExceeded: (request, reply, decision) => {
        metrics.rateLimited.labels('checkout').inc();
        return send(
          request,
          reply,
          new UcpError(
            'rate_limited',
            `Rate limit of ${decision.limit} checkout requests per minute exceeded; retry after ${decision.resetSeconds} seconds.`,
          ),
        );
      },
    }),
  );
  // Every operation is negotiated from the agent's profile before its body is looked at.
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.fallback) return;
    const agent = parseUcpAgent(request.headers['ucp-agent'], opts.allowInsecureProfiles);
    try {
      request.ucp = negotiate(await opts.profiles.get(agent.profile));
    } catch (err) {
      if (!(err instanceof CapabilitiesIncompatible)) throw err;
      // A business outcome, not a transport error: 200 with the UCP envelope in status error.
      return sendFinished(
        reply,
        jsonResponse(200, {
          ucp: { version: err.version, status: 'error' },
          messages: [
            {
              type: 'error',
              code: 'capabilities_incompatible',
              content: err.message,
              severity: 'unrecoverable',
            },
          ],
        }),
      );
    }
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof UcpError) return send(request, reply, err);
    const code = fastifyErrorCode(err);
    if (code === 'internal_error') request.log.error({ err }, 'unhandled error on UCP');
    return send(
      request,
      reply,
      new UcpError(code, code === 'internal_error' ? 'An unexpected error occurred.' : err.message),
    );
  });

  registerUcpRoutes(app, opts.handlerSpecUrl);
  const unknown = async (request: FastifyRequest) => {
    throw new UcpError('route_not_found', `No UCP operation ${request.method} ${request.url.split('?')[0]}.`);
  };
  registerFallbacks(app, '/checkout-sessions', ['POST'], unknown);
  registerFallbacks(app, '/checkout-sessions/:id', ['GET', 'PUT'], unknown);
  registerFallbacks(app, '/checkout-sessions/:id/complete', ['POST'], unknown);
  registerFallbacks(app, '/checkout-sessions/:id/cancel', ['POST'], unknown);
  registerFallbacks(app, '/*', [], unknown);
}
