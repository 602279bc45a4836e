// Colony's MCP server definition (public and memory tools), and the two ways /mcp serves it.
import {
  type AuthInfo,
  createMcpHandler,
  type JSONRPCRequest,
  type McpHttpHandler,
  McpServer,
} from '@modelcontextprotocol/server';
import { VERSION } from '../../cluster/version.ts';
import { availableDocs, readDoc } from '../discovery/docs-source.ts';
import { SkillsListing } from '../public/skills-listing.ts';
import { type DocSection, docSections } from './docs-search.ts';
import type { McpOptions } from './mcp-options.ts';
import { registerMemoryTools } from './memory-tools.ts';
import { type ExchangeAnswer, MultiplexedTransport } from './multiplexed-transport.ts';
import { registerPublicTools } from './public-tools.ts';

const INSTRUCTIONS =
  'Colony: pricing, platform status, docs and skills need no credential. The cortex_* tools read and ' +
  'write your own memory and need an OAuth token with memory:read or memory:write.';

export interface ColonyMcp {
  /**
   * The shared server: built and connected once, it answers the requests sharedServerRequest()
   * selects, many at once, each with its own AuthInfo.
   */
  exchange: (request: JSONRPCRequest, authInfo?: AuthInfo) => Promise<ExchangeAnswer>;
  /** The SDK's per-request entry, a fresh server per request, for everything else. */
  handler: McpHttpHandler;
  close: () => Promise<void>;
}

/**
 * Stateless either way: neither the shared server nor the per-request ones keep anything between
 * requests, so any replica answers any request. The tool definitions are the same for both; no
 * tool reads the caller from anywhere but the call's own context.
 */
export async function createColonyMcp(services: McpOptions): Promise<ColonyMcp> {
  const base = services.config.baseUrl;
  const docs: DocSection[] = availableDocs().flatMap((name) =>
    docSections(name, `${base}/docs/${name}.md`, readDoc(name, base)),
  );
  const skills = new SkillsListing(services.storage.skills, base, services.now);
  const build = () => {
    const server = new McpServer(
      { name: 'colony', title: 'Colony', version: VERSION },
      { instructions: INSTRUCTIONS },
    );
    registerPublicTools(server, { services, docs, skills });
    registerMemoryTools(server, services);
    return server;
  };
  const handler = createMcpHandler(build, {
    legacy: 'stateless',
    maxRequestBodySize: services.config.bodyLimitBytes,
  });
  const shared = build();
  const transport = new MultiplexedTransport();
  await shared.connect(transport);
  return {
    exchange: (request, authInfo) => transport.exchange(request, authInfo),
    handler,
    close: async () => {
      await Promise.all([handler.close(), shared.close()]);
    },
  };
}
