// The MCP tools anyone may call: pricing, platform status, docs search and skills, answered from
// the same services as /api/v1.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { overallState, runProbe } from '../domain/status/probes.ts';
import { presentPricing } from '../public/presenters.ts';
import { decodeSkillsCursor } from '../public/skills-cursor.ts';
import type { SkillsListing } from '../public/skills-listing.ts';
import { type DocSection, searchSections } from './docs-search.ts';
import type { McpOptions } from './mcp-options.ts';
import { signalOutage } from './outage-signal.ts';
import { jsonResult, type ToolResult, toolError } from './tool-result.ts';

export interface PublicToolDeps {
  services: Pick<McpOptions, 'config' | 'prices' | 'probes'>;
  docs: readonly DocSection[];
  skills: SkillsListing;
}

const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

// Built once, not per request: converting schemas dominated the cost of an MCP call.
const inputs = {
  get_pricing: z.object({ plan: z.string().max(64).optional().describe('Only this plan slug') }),
  get_platform_status: z.object({ service: z.string().max(64).optional().describe('Only this service') }),
  search_docs: z.object({
    query: z.string().min(1).max(500),
    limit: z.number().int().min(1).max(20).default(5),
  }),
  list_skills: z.object({
    limit: z.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
  }),
};

export function registerPublicTools(server: McpServer, deps: PublicToolDeps): void {
  const { services, docs, skills } = deps;
  // The price list never changes while the process runs: the whole list is one result, built at its
  // first call (the SDK copies a result as it validates it, and never writes to it).
  let fullPricing: ToolResult | undefined;

  server.registerTool(
    'get_pricing',
    {
      title: 'Colony pricing',
      description: 'Plans, monthly and annual prices (integer cents USD), credits, limits and add-ons.',
      inputSchema: inputs.get_pricing,
      annotations: readOnly,
    },
    async ({ plan }) => {
      if (plan === undefined) {
        fullPricing ??= jsonResult(presentPricing(services.prices));
        return fullPricing;
      }
      const pricing = presentPricing(services.prices, plan);
      if (pricing.plans.length === 0) {
        return toolError(`No plan "${plan}". Plans: ${services.prices.plans.map((p) => p.slug).join(', ')}.`);
      }
      return jsonResult(pricing);
    },
  );

  server.registerTool(
    'get_platform_status',
    {
      title: 'Platform status',
      description: 'Health of each running part of Colony, and the overall state.',
      inputSchema: inputs.get_platform_status,
      annotations: readOnly,
    },
    async ({ service }) => {
      const probes = services.probes().filter((p) => service === undefined || p.name === service);
      if (probes.length === 0) {
        return toolError(
          `No service "${service}". Services: ${services
            .probes()
            .map((p) => p.name)
            .join(', ')}.`,
        );
      }
      const results = await Promise.all(probes.map((p) => runProbe(p)));
      return jsonResult({
        status: overallState(results),
        environment: services.config.environment,
        services: results,
      });
    },
  );

  server.registerTool(
    'search_docs',
    {
      title: 'Search the Colony docs',
      description: 'Full-text search over the Colony documentation (API, errors, auth, configuration).',
      inputSchema: inputs.search_docs,
      annotations: readOnly,
    },
    async ({ query, limit }) => jsonResult({ results: searchSections(docs, query, limit) }),
  );

  server.registerTool(
    'list_skills',
    {
      title: 'List agent skills',
      description: 'Published agent skills, a page at a time; pass nextCursor back to continue.',
      inputSchema: inputs.list_skills,
      annotations: readOnly,
    },
    async ({ limit, cursor }, ctx) => {
      const afterName = cursor === undefined ? undefined : decodeSkillsCursor(cursor);
      if (cursor !== undefined && afterName === undefined) {
        return toolError('cursor is not one Colony issued; pass nextCursor unchanged.');
      }
      const where = afterName !== undefined ? { afterName } : { offset: 0 };
      const page = await signalOutage(ctx, async () => skills.page({ limit, ...where }));
      return jsonResult(JSON.parse(page.text) as Record<string, unknown>);
    },
  );
}
