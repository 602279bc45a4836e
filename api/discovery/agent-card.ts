// Pure: Colony's A2A agent card (protocol 1.0.1) from the base URL and the published skills.
import type { SkillRecord } from '../domain/skills/skills-repo.ts';
import { oauthRoutes } from '../identity/oauth/provider-config.ts';
import { memoryScopes, scopeDescriptions } from '../identity/scopes.ts';

export const A2A_PROTOCOL_VERSION = '1.0';

/**
 * The one interface is MCP's Streamable HTTP transport, named as A2A §5.8 asks of a binding outside
 * its core three: by a URI, a new one per breaking revision (the MCP revision Colony serves).
 */
export const MCP_BINDING_URI =
  'https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http';

export function buildAgentCard(baseUrl: string, version: string, skills: readonly SkillRecord[]) {
  return {
    name: 'Colony',
    description:
      'Open, self-hostable platform for running fleets of AI agents on Kubernetes: pricing, checkout hand-off, platform status, published skills and a memory tool server.',
    // Colony does not speak A2A's task protocol; the interface it offers agents is MCP (see docs/decisions.md).
    supportedInterfaces: [
      { url: `${baseUrl}/mcp`, protocolBinding: MCP_BINDING_URI, protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    provider: { organization: 'Colony', url: baseUrl },
    version,
    documentationUrl: `${baseUrl}/llms.txt`,
    capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
    securitySchemes: {
      oauth2: {
        oauth2SecurityScheme: {
          description:
            'OAuth 2.1 authorization code with PKCE; memory tools need memory:read or memory:write',
          // `flows` is a one-of: the flow agents use for MCP. The CLI's device flow is for operators.
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}${oauthRoutes.authorization}`,
              tokenUrl: `${baseUrl}${oauthRoutes.token}`,
              scopes: Object.fromEntries(memoryScopes.map((s) => [s, scopeDescriptions[s]])),
              pkceRequired: true,
            },
          },
          oauth2MetadataUrl: `${baseUrl}/.well-known/oauth-authorization-server`,
        },
      },
      bearer: {
        httpAuthSecurityScheme: { scheme: 'Bearer', description: 'API key (col_…) or access token' },
      },
    },
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/markdown'],
    skills: skills.map((s) => ({
      id: s.name,
      name: s.name,
      description: s.description,
      tags: ['colony', ...s.name.split('-').filter((t) => t !== 'colony')],
    })),
  };
}
