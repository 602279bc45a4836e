// The UCP protocol versions Colony serves: the current one at /.well-known/ucp and the older one it keeps.

export const UCP_VERSIONS = ['2026-01-23', '2026-04-08'] as const;
export type UcpVersion = (typeof UCP_VERSIONS)[number];
export const CURRENT_UCP_VERSION: UcpVersion = '2026-04-08';

export function isUcpVersion(v: unknown): v is UcpVersion {
  return typeof v === 'string' && (UCP_VERSIONS as readonly string[]).includes(v);
}

export const CHECKOUT_CAPABILITY = 'dev.ucp.shopping.checkout';
export const IDENTITY_LINKING_CAPABILITY = 'dev.ucp.common.identity_linking';
export const SHOPPING_SERVICE = 'dev.ucp.shopping';
export const HOSTED_BILLING_HANDLER = 'ai.colony.hosted_billing';
export const HOSTED_BILLING_HANDLER_ID = 'hosted_billing';
