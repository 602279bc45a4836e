// One MCP server definition (public and memory tools) behind the SDK's per-request HTTP handler.
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  McpServer,
} from '@modelcontextprotocol/server';
import { VERSION } from '../../cluster/version.ts';
import { availableDocs, readDoc } from '../discovery/docs-source.ts';
import { SkillsListing } from '../public/skills-listing.ts';
import type { Principal } from '../shared/identity.ts';
import { type DocSection, docSections } from './docs-search.ts';
import type { McpOptions } from './mcp-options.ts';
import { registerMemoryTools } from './memory-tools.ts';
import { registerPublicTools } from './public-tools.ts';

const INSTRUCTIONS =
  'Colony: pricing, platform status, docs and skills need no credential. The cortex_* tools read and ' +
  'write your own memory and need an OAuth token with memory:read or memory:write.';

/** The principal rides through the SDK in AuthInfo.extra; the SDK never derives it from headers. */
export function authInfoOf(principal: Principal, token: string): AuthInfo {
  return {
    token,
    clientId: principal.clientId ?? principal.credentialId ?? principal.subject,
    scopes: principal.scopes,
    extra: { principal },
  };
}

const principalOf = (authInfo: AuthInfo | undefined): Principal | null =>
  (authInfo?.extra?.principal as Principal | undefined) ?? null;

/**
 * Stateless serving: a fresh server per request for the current revision and for 2025-era
 * clients alike, so any replica answers any request and nothing is held between requests.
 */
export function createColonyMcpHandler(services: McpOptions): McpHttpHandler {
  const base = services.config.baseUrl;
  const docs: DocSection[] = availableDocs().flatMap((name) =>
    docSections(name, `${base}/docs/${name}.md`, readDoc(name, base)),
  );
  const skills = new SkillsListing(services.storage.skills, base, services.now);
  return createMcpHandler(
    ({ authInfo }) => {
      const server = new McpServer(
        { name: 'colony', title: 'Colony', version: VERSION },
        { instructions: INSTRUCTIONS },
      );
      registerPublicTools(server, { services, docs, skills });
      registerMemoryTools(server, services, principalOf(authInfo));
      return server;
    },
    { legacy: 'stateless', maxRequestBodySize: services.config.bodyLimitBytes },
  );
}
