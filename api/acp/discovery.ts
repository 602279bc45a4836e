// Pure: the ACP discovery document (/.well-known/acp.json) in its 2026-04-17 shape.
import { ACP_VERSIONS, LATEST_ACP_VERSION } from './versions.ts';

export function acpDiscovery(baseUrl: string) {
  return {
    protocol: {
      name: 'acp' as const,
      version: LATEST_ACP_VERSION,
      supported_versions: [...ACP_VERSIONS],
      documentation_url: `${baseUrl}/docs/commerce.md`,
    },
    api_base_url: baseUrl,
    transports: ['rest'],
    // Checkout only: no orders API, no carts, and delegated payment is not supported.
    capabilities: { services: ['checkout'], supported_currencies: ['usd'], supported_locales: ['en-US'] },
  };
}
