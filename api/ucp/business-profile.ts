// Pure: Colony's UCP business profile (/.well-known/ucp) for each protocol version it serves.
import { hostedBillingHandler } from './present-session.ts';
import {
  CHECKOUT_CAPABILITY,
  CURRENT_UCP_VERSION,
  HOSTED_BILLING_HANDLER,
  IDENTITY_LINKING_CAPABILITY,
  SHOPPING_SERVICE,
  UCP_VERSIONS,
  type UcpVersion,
} from './versions.ts';

/** Where the profile of a version is served: the current one at /.well-known/ucp, older ones below it. */
export const profilePath = (version: UcpVersion): string =>
  version === CURRENT_UCP_VERSION ? '/.well-known/ucp' : `/.well-known/ucp/${version}`;

export const profileUrl = (baseUrl: string, version: UcpVersion): string =>
  `${baseUrl}${profilePath(version)}`;

export function businessProfile(baseUrl: string, version: UcpVersion, handlerSpecUrl: string) {
  const ucpDev = `https://ucp.dev/${version}`;
  const restSchema = version === '2026-01-23' ? 'openapi.json' : 'rest.openapi.json';
  const older = UCP_VERSIONS.filter((v) => v !== CURRENT_UCP_VERSION);
  return {
    ucp: {
      version,
      // Only the current profile lists the others; version-specific profiles are leaves.
      ...(version === CURRENT_UCP_VERSION
        ? { supported_versions: Object.fromEntries(older.map((v) => [v, profileUrl(baseUrl, v)])) }
        : {}),
      services: {
        [SHOPPING_SERVICE]: [
          {
            version,
            spec: `${ucpDev}/specification/overview`,
            transport: 'rest',
            endpoint: `${baseUrl}/ucp/v1`,
            schema: `${ucpDev}/services/shopping/${restSchema}`,
          },
        ],
      },
      capabilities: {
        [CHECKOUT_CAPABILITY]: [
          {
            version,
            spec: `${ucpDev}/specification/checkout`,
            schema: `${ucpDev}/schemas/shopping/checkout.json`,
          },
        ],
        // Identity linking is Colony's OAuth 2.1 server, found by RFC 8414 discovery on this origin.
        // Checkout itself needs no user token, so no scope is gated.
        [IDENTITY_LINKING_CAPABILITY]: [
          {
            version,
            spec: `${ucpDev}/specification/identity-linking`,
            schema: `${ucpDev}/schemas/common/identity_linking.json`,
            config: { scopes: {}, authorization_server: `${baseUrl}/.well-known/oauth-authorization-server` },
          },
        ],
      },
      payment_handlers: { [HOSTED_BILLING_HANDLER]: [hostedBillingHandler(version, handlerSpecUrl)] },
    },
    // Responses are not signed.
    signing_keys: [],
  };
}
