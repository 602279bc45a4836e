// One checkout surface, driven by a protocol adapter: JSON bodies, the Request-Id echo, version negotiation,
// the shared checkout rate limit, the five operations, and every error in the protocol's format. A method or
// path it does not serve is answered by the server's not-found handler, in the same format (api/framework-answers.ts).
import type { FastifyError, FastifyInstance, FastifyPluginAsync } from 'fastify';
import { allowBrowsers } from '../shared/browser-access.ts';
import { allowListed } from '../shared/cors-answer.ts';
import type { CatalogueError } from '../shared/error-catalogue.ts';
import { rateLimitHook } from '../shared/rate-limit/rate-limit-hook.ts';
import { echoedRequestId } from '../shared/request-id.ts';
import { admitWrites } from '../shared/write-admission.ts';
import type { CheckoutAdapter } from './checkout-adapter.ts';
import { checkoutErrors } from './checkout-errors.ts';
import { registerCheckoutOperations } from './checkout-operations.ts';
import type { CommerceOptions } from './commerce-services.ts';
import { lenientJsonParser } from './send-response.ts';

export function checkoutSurface<V, C extends string, E extends CatalogueError<C>>(
  adapter: CheckoutAdapter<V, C, E>,
): FastifyPluginAsync<CommerceOptions> {
  return async function checkoutProtocol(app: FastifyInstance, opts: CommerceOptions): Promise<void> {
    const { commerce, metrics } = opts;
    const errors = checkoutErrors(adapter);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, lenientJsonParser);
    app.decorateRequest('checkoutVariant', undefined);
    // Each protocol is described by its own published documents, not by Colony's /openapi.json.
    app.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    // Browser pages on the allow-list may call checkout; others get no CORS headers, so they can neither
    // read an answer nor send a JSON body.
    allowBrowsers(app, allowListed(opts.config.allowedOrigins));

    app.addHook('onRequest', (request, reply, done) => {
      reply.header('request-id', echoedRequestId(request.headers['request-id'], request.id));
      done();
    });
    const { negotiation } = adapter;
    if (negotiation.hook === 'onRequest') {
      app.addHook('onRequest', (request, reply, done) => {
        try {
          request.checkoutVariant = negotiation.negotiate(request, reply);
        } catch (err) {
          done(err as Error);
          return;
        }
        done();
      });
    }
    app.addHook(
      'onRequest',
      rateLimitHook({
        limiter: commerce.limiter,
        onExceeded: (request, reply, decision) => {
          metrics.rateLimited.labels('checkout').inc();
          const refusal = {
            reason: 'rate_limited',
            limit: decision.limit,
            seconds: decision.resetSeconds,
          } as const;
          return errors.send(request, reply, errors.refuse(refusal));
        },
      }),
    );
    if (commerce.writes) admitWrites(app, commerce.writes);
    if (negotiation.hook === 'preHandler') {
      app.addHook('preHandler', async (request, reply) => {
        request.checkoutVariant = await negotiation.negotiate(request, reply);
      });
    }

    app.setErrorHandler((err: FastifyError, request, reply) =>
      errors.send(request, reply, errors.fromThrown(err, request)),
    );
    registerCheckoutOperations(app, adapter, errors, opts);
    adapter.routes.extra?.(app);
  };
}
