// UCP on the checkout surface (/ucp/v1): each operation is negotiated from the agent profile UCP-Agent names;
// an update (PUT) replaces the whole cart, and completing a cart that cannot be bought answers with it.
import type { CheckoutAdapter } from '../commerce/checkout-adapter.ts';
import { UcpError, type UcpErrorCode, ucpErrorBody, ucpErrors } from './errors.ts';
import { type Negotiated, negotiate } from './negotiate.ts';
import type { PlatformProfiles } from './platform-profile.ts';
import { presentUcpSession } from './present-session.ts';
import { ucpParsers } from './schemas.ts';
import { parseUcpAgent } from './ucp-agent.ts';

export interface UcpAdapterOptions {
  profiles: PlatformProfiles;
  allowInsecureProfiles: boolean;
  handlerSpecUrl: string;
}

export function ucpAdapter(opts: UcpAdapterOptions): CheckoutAdapter<Negotiated, UcpErrorCode, UcpError> {
  return {
    protocol: 'ucp',
    routes: { sessions: '/checkout-sessions', update: 'PUT' },
    // After the rate limit, so a refused request never fetches a profile.
    negotiation: {
      hook: 'preHandler',
      negotiate: async (request) => {
        const agent = parseUcpAgent(request.headers['ucp-agent'], opts.allowInsecureProfiles);
        return negotiate(await opts.profiles.get(agent.profile));
      },
    },
    parsers: ucpParsers,
    present: (session, n, ctx) =>
      presentUcpSession(session, n, { ...ctx, handlerSpecUrl: opts.handlerSpecUrl }),
    errors: {
      catalogue: ucpErrors,
      refusals: {
        final: 'checkout_not_modifiable',
        not_ready: 'present',
        unknown_items: 'item_unavailable',
        idempotency_key_invalid: {
          code: 'invalid_request',
          message: 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        },
      },
      create: (code, message, extra) =>
        new UcpError(code, message, { path: extra.at, headers: extra.headers }),
      is: (err) => err instanceof UcpError,
      body: (err, n) => ucpErrorBody(err, n?.version),
    },
  };
}
