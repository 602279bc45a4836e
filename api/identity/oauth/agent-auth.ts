// Pure: the `agent_auth` block of the authorization-server metadata. It tells an agent, in one
// document, how to obtain each identity type of the service (spec 5.5) and where to read more.
import { memoryToolScopes, publicToolNames } from '../../mcp/tool-scopes.ts';
import { apiKeyPrefix } from '../keys/api-key-format.ts';
import { agentCredentialScopes } from '../keys/api-key-service.ts';
import { scopeDescriptions } from '../scopes.ts';
import { CLI_CLIENT_ID, DEVICE_CODE_GRANT, oauthRoutes } from './provider-config.ts';
import { resourceServers } from './resources.ts';

export function agentAuthBlock(baseUrl: string, environment: 'production' | 'sandbox') {
  const b = baseUrl;
  const resources = resourceServers(b);
  return {
    version: '2026-11-23',
    documentation: `${b}/auth.md`,
    signup_url: `${b}/signup`,
    account_url: `${b}/account`,
    api_key_prefix: apiKeyPrefix(environment),
    bearer_methods_supported: ['header'],
    identity_types: {
      anonymous: {
        description:
          'No credential: discovery documents, the public read API, MCP public tools and checkout.',
        covers: [
          `${b}/api/v1`,
          `${b}/.well-known/*`,
          `${b}/llms.txt`,
          `${b}/mcp (public tools)`,
          `${b}/checkout_sessions`,
          `${b}/ucp/v1`,
        ],
      },
      service_auth: {
        description:
          'An operator credential bound to the operator’s offices, sent as a bearer token. A person signs up, is made a member of an office (or, with a plan, creates one: PUT /api/v1/offices/{officeID}), then creates an API key, signs a CLI in with the device flow, or provisions an agent credential bound to one office.',
        credentials: [
          {
            type: 'api_key',
            prefix: apiKeyPrefix(environment),
            create_in_browser: `${b}/account`,
            create_with_api: { method: 'POST', url: `${b}/api/v1/keys`, scope: 'keys:write' },
            shown: 'once; stored hashed; revoke at the account page or DELETE /api/v1/keys/{id}',
          },
          {
            type: 'device_code_session',
            grant_type: DEVICE_CODE_GRANT,
            client_id: CLI_CLIENT_ID,
            device_authorization_endpoint: `${b}${oauthRoutes.device_authorization}`,
            verification_uri: `${b}${oauthRoutes.code_verification}`,
            suggested_scope: 'offices:read offices:write keys:write offline_access',
            resource: b,
          },
          {
            type: 'agent_credential',
            description:
              'An API key for one agent of one office, provisioned by an owner of that office; it operates that office and never acts as the owner.',
            create_in_browser: `${b}/account`,
            create_with_api: {
              method: 'POST',
              url: `${b}/api/v1/offices/{officeID}/agent-credentials`,
              scope: 'keys:write',
            },
            scopes: agentCredentialScopes,
          },
          {
            type: 'bootstrap_token',
            description: 'COLONY_BOOTSTRAP_TOKEN, set by the cluster admin; reaches every office.',
          },
        ],
      },
      user: {
        description:
          'A person’s delegated OAuth 2.1 grant, for MCP clients and other apps acting for them (memory tools).',
        grant_type: 'authorization_code',
        pkce: 'S256 (required)',
        client_registration: {
          dynamic: `${b}${oauthRoutes.registration}`,
          note: 'RFC 7591: no pre-registered client id is needed',
        },
        resource_indicators: resources.map((r) => ({
          resource: r.identifier,
          metadata: r.metadataUrl,
          scopes: r.scopes,
        })),
        refresh_tokens: 'request offline_access',
      },
    },
    mcp: {
      endpoint: `${b}/mcp`,
      protected_resource_metadata: `${b}/.well-known/oauth-protected-resource/mcp`,
      transport: 'streamable-http',
      public_tools: publicToolNames,
      memory_tools: memoryToolScopes,
    },
    scopes: scopeDescriptions,
  };
}
