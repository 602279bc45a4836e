// Pure: /llms.txt (an index in the llms.txt format) and /llms-full.txt (the same material inline).
import type { PriceList } from '../domain/pricing/price-list.ts';
import type { SkillRecord } from '../domain/skills/skills-repo.ts';
import { skillFileUrl } from '../public/presenters.ts';

export interface LlmsInput {
  baseUrl: string;
  environment: 'production' | 'sandbox';
  prices: PriceList;
  skills: readonly SkillRecord[];
  docs: readonly { name: string; title: string; markdown: string }[];
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function summary(i: LlmsInput): string {
  const plans = i.prices.plans
    .map((p) => `${p.name} ${dollars(p.monthlyPriceCents)}/month or ${dollars(p.annualPriceCents)}/year`)
    .join('; ');
  return [
    '# Colony',
    '',
    `> Colony is an open, self-hostable platform for running fleets of AI agents on Kubernetes. This is the ${i.environment} API at ${i.baseUrl}: a public read API (no credential), published agent skills and discovery documents.`,
    '',
    `Plans (${i.prices.version}): ${plans}. Every plan starts with a ${i.prices.trialDays}-day free trial. Agents never pay on a user's behalf: a checkout hands the purchase to the account owner at its continue_url.`,
    'Errors on /api/v1 are RFC 9457 application/problem+json. Bearer tokens go only in the Authorization header.',
  ].join('\n');
}

export function buildLlmsTxt(i: LlmsInput): string {
  const b = i.baseUrl;
  const lines = [
    summary(i),
    '',
    '## API',
    `- [API index](${b}/api/v1): links to every public resource`,
    `- [OpenAPI description](${b}/openapi.json): every operation, parameter, response and problem schema`,
    `- [Pricing](${b}/api/v1/pricing): plans by slug, credit allowances, add-ons and usage charging`,
    `- [Commerce catalog](${b}/api/v1/commerce/catalog): item ids and prices both checkout protocols accept`,
    `- [ACP discovery](${b}/.well-known/acp.json): Agentic Commerce Protocol checkout at ${b}/checkout_sessions (every API-Version from 2025-09-29 to 2026-04-17)`,
    `- [UCP profile](${b}/.well-known/ucp): Universal Commerce Protocol checkout at ${b}/ucp/v1/checkout-sessions`,
    `- [Platform status](${b}/api/v1/status): health of each running service`,
    `- [Skills](${b}/api/v1/skills): published agent skills, paginated with nextCursor`,
    `- [MCP server](${b}/.well-known/oauth-protected-resource/mcp): Streamable HTTP at ${b}/mcp; get_pricing, get_platform_status, search_docs and list_skills need no credential, the cortex_* memory tools an OAuth token with memory:read or memory:write`,
    '',
    '## Docs',
    ...i.docs.map((d) => `- [${d.title}](${b}/docs/${d.name}.md)`),
    `- [How agents authenticate](${b}/auth.md): each identity type and how to obtain it`,
    '',
    '## Skills',
    ...i.skills.map((s) => `- [${s.name}](${skillFileUrl(b, s.name)}): ${s.description}`),
    '',
    '## Optional',
    `- [Everything above in one file](${b}/llms-full.txt)`,
    `- [A2A agent card](${b}/.well-known/agent-card.json)`,
    `- [Agent skills index](${b}/.well-known/agent-skills/index.json)`,
    `- [Sign up](${b}/signup)`,
  ];
  return `${lines.join('\n')}\n`;
}

export function buildLlmsFullTxt(i: LlmsInput): string {
  const parts = [summary(i)];
  for (const d of i.docs) parts.push(`<!-- ${i.baseUrl}/docs/${d.name}.md -->\n\n${d.markdown.trim()}`);
  for (const s of i.skills) parts.push(`<!-- ${skillFileUrl(i.baseUrl, s.name)} -->\n\n${s.content.trim()}`);
  return `${parts.join('\n\n---\n\n')}\n`;
}
