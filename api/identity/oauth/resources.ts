// Pure: the resource servers tokens are issued for (RFC 8707) and their RFC 9728 metadata.
import { memoryScopes, resourceScopes } from '../scopes.ts';

export interface ResourceServerSpec {
  /** The resource indicator clients send, and the audience of tokens issued for it. */
  identifier: string;
  name: string;
  scopes: readonly string[];
  /** Where its RFC 9728 metadata lives. */
  metadataUrl: string;
}

export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/**
 * Two resources: the whole service at the base URL (the REST API, office manager, keys) and the MCP
 * endpoint, whose tokens carry memory scopes only. A token for the base URL is accepted by both.
 */
export function resourceServers(baseUrl: string): ResourceServerSpec[] {
  return [
    {
      identifier: baseUrl,
      name: 'Colony API',
      scopes: resourceScopes,
      metadataUrl: `${baseUrl}/.well-known/oauth-protected-resource`,
    },
    {
      identifier: `${baseUrl}/mcp`,
      name: 'Colony MCP server',
      scopes: memoryScopes,
      metadataUrl: `${baseUrl}/.well-known/oauth-protected-resource/mcp`,
    },
  ];
}

/** The resource server an indicator names; a trailing slash on the base URL is tolerated. */
export function findResourceServer(baseUrl: string, indicator: string): ResourceServerSpec | undefined {
  const wanted = indicator === `${baseUrl}/` ? baseUrl : indicator;
  return resourceServers(baseUrl).find((r) => r.identifier === wanted);
}

/** RFC 9728 metadata: tokens only in the Authorization header, never in a query or body. */
export function protectedResourceMetadata(baseUrl: string, resource: ResourceServerSpec) {
  return {
    resource: resource.identifier,
    authorization_servers: [baseUrl],
    scopes_supported: [...resource.scopes],
    bearer_methods_supported: ['header'],
    resource_name: resource.name,
    resource_documentation: `${baseUrl}/auth.md`,
  };
}
