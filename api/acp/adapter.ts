// ACP on the checkout surface: API-Version negotiation, ACP bodies, snapshots and error objects; delegated
// payment is refused. Everything else (operations, hooks, idempotency) is checkout-surface.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CheckoutAdapter } from '../commerce/checkout-adapter.ts';
import { messageFor } from '../shared/error-catalogue.ts';
import { AcpError, type AcpErrorCode, acpErrorBody, acpErrors } from './errors.ts';
import { presentAcpSession } from './present-session.ts';
import { acpParsers } from './schemas.ts';
import { type AcpVersion, LATEST_ACP_VERSION, parseAcpVersion } from './versions.ts';

/** Every response names the snapshot it answers in; an unknown one is answered in the newest. */
function negotiateAcpVersion(request: FastifyRequest, reply: FastifyReply): AcpVersion {
  const version = parseAcpVersion(request.headers['api-version']);
  if (typeof version === 'object') {
    reply.header('api-version', LATEST_ACP_VERSION);
    const message = messageFor(acpErrors, 'unsupported_version', { given: version.unsupported });
    throw new AcpError('unsupported_version', message, { param: 'API-Version' });
  }
  reply.header('api-version', version);
  return version;
}

function delegatePayment(app: FastifyInstance): void {
  app.post('/agentic_commerce/delegate_payment', async () => {
    throw new AcpError(
      'delegated_payment_unsupported',
      messageFor(acpErrors, 'delegated_payment_unsupported'),
    );
  });
}

export const acpAdapter: CheckoutAdapter<AcpVersion, AcpErrorCode, AcpError> = {
  protocol: 'acp',
  routes: {
    sessions: '/checkout_sessions',
    update: 'POST',
    extra: delegatePayment,
  },
  negotiation: { hook: 'onRequest', negotiate: negotiateAcpVersion },
  platformKeys: true,
  parsers: acpParsers,
  present: presentAcpSession,
  errors: {
    catalogue: acpErrors,
    refusals: { final: 'session_final', not_ready: 'session_not_ready', unknown_items: 'invalid_item_id' },
    create: (code, message, extra) =>
      new AcpError(code, message, { param: extra.at, headers: extra.headers }),
    is: (err) => err instanceof AcpError,
    body: (err, version) => acpErrorBody(err.code, err.message, version ?? LATEST_ACP_VERSION, err.param),
  },
};
