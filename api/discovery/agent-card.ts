// Pure: Colony's A2A agent card (protocol 1.0 shape) from the base URL and the published skills.
import type { SkillRecord } from '../domain/skills/skills-repo.ts';

export const A2A_PROTOCOL_VERSION = '1.0';

export function buildAgentCard(baseUrl: string, version: string, skills: readonly SkillRecord[]) {
  return {
    name: 'Colony',
    description:
      'Open, self-hostable platform for running fleets of AI agents on Kubernetes: pricing, checkout hand-off, platform status, published skills and a memory tool server.',
    // Colony does not speak A2A's task protocol; the interface it offers agents is MCP (see docs/decisions.md).
    supportedInterfaces: [
      { url: `${baseUrl}/mcp`, protocolBinding: 'MCP', protocolVersion: A2A_PROTOCOL_VERSION },
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
