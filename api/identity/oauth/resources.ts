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
 * endpoint, whose tokens carry memory scopes only.
 */
export function colonyResources(baseUrl: string): { api: ResourceServerSpec; mcp: ResourceServerSpec } {
  return {
    api: {
      identifier: baseUrl,
      name: 'Colony API',
      scopes: resourceScopes,
      metadataUrl: `${baseUrl}/.well-known/oauth-protected-resource`,
    },
    mcp: {
      identifier: `${baseUrl}/mcp`,
      name: 'Colony MCP server',
      scopes: memoryScopes,
      metadataUrl: `${baseUrl}/.well-known/oauth-protected-resource/mcp`,
    },
  };
}

export function resourceServers(baseUrl: string): ResourceServerSpec[] {
  const { api, mcp } = colonyResources(baseUrl);
  return [api, mcp];
}

/**
 * Why an access token with this audience may not be used at `resource`, or undefined when it may
 * (RFC 8707). A token is for the resource it names; the base URL names the whole service, so its
 * tokens reach the MCP endpoint too (docs/decisions.md). A token without an audience was issued for
 * userinfo only and reaches no resource.
 */
export function audienceRefusal(
  baseUrl: string,
  audience: string | undefined,
  resource: ResourceServerSpec,
): string | undefined {
  if (audience === resource.identifier || audience === baseUrl) return undefined;
  const named =
    audience === undefined ? 'token audience is none (a userinfo token)' : `token audience ${audience}`;
  return `${named} is not this resource; ask for a token with resource=${resource.identifier}`;
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
