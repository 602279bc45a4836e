// Discovery documents: OpenAPI, llms.txt, auth.md, the A2A agent card, the skills index.
// (/signup is an identity page: api/identity/pages/.)

import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../cluster/version.ts';
import type { Storage } from '../app-storage.ts';
import type { Config } from '../config.ts';
import type { PriceList } from '../domain/pricing/price-list.ts';
import { securePages } from '../shared/page-security.ts';
import { type ProblemCode, problemCatalogue } from '../shared/problem.ts';
import { buildAgentCard } from './agent-card.ts';
import { availableDocs, docTitle, readDoc } from './docs-source.ts';
import { buildLlmsFullTxt, buildLlmsTxt } from './llms-txt.ts';
import { renderProblemPage } from './problem-page.ts';
import { buildSkillsIndex } from './skills-index.ts';

const hidden = { schema: { hide: true } };
const MARKDOWN = 'text/markdown; charset=utf-8';

export interface DiscoveryOptions {
  config: Config;
  prices: PriceList;
  /** The published skills, listed in llms.txt and the skills index. */
  storage: Storage;
}

export async function discoveryPlugin(app: FastifyInstance, opts: DiscoveryOptions): Promise<void> {
  securePages(app);
  const { config, prices, storage } = opts;
  const base = config.baseUrl;
  const allSkills = () => storage.skills.all();
  // The docs ship with the install and never change while it runs: read once, at start-up.
  const docs = availableDocs().map((name) => {
    const markdown = readDoc(name, base);
    return { name, title: docTitle(markdown, name), markdown };
  });
  const docsByName = new Map(docs.map((d) => [d.name, d.markdown]));
  const authDoc = docsByName.get('auth') ?? readDoc('auth', base);
  const llmsInput = async () => ({
    baseUrl: base,
    environment: config.environment,
    prices,
    skills: await allSkills(),
    docs,
  });

  let openapi: string | undefined;
  app.get('/openapi.json', hidden, async (_request, reply) => {
    openapi ??= JSON.stringify(app.swagger());
    return reply.type('application/json').send(openapi);
  });

  app.get('/llms.txt', hidden, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send(buildLlmsTxt(await llmsInput())),
  );
  app.get('/llms-full.txt', hidden, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send(buildLlmsFullTxt(await llmsInput())),
  );
  app.get('/auth.md', hidden, async (_request, reply) => reply.type(MARKDOWN).send(authDoc));
  app.get<{ Params: { name: string } }>('/docs/:name', hidden, async (request, reply) => {
    const markdown = docsByName.get(request.params.name.replace(/\.md$/, ''));
    if (markdown === undefined) return reply.callNotFound();
    return reply.type(MARKDOWN).send(markdown);
  });

  app.get('/.well-known/agent-card.json', hidden, async () =>
    buildAgentCard(base, VERSION, await allSkills()),
  );
  app.get('/.well-known/agent-skills/index.json', hidden, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').send(buildSkillsIndex(base, await allSkills())),
  );
  app.get<{ Params: { name: string } }>(
    '/.well-known/agent-skills/:name/SKILL.md',
    hidden,
    async (request, reply) => {
      const skill = await storage.skills.get(request.params.name);
      if (!skill) return reply.callNotFound();
      return reply
        .type(MARKDOWN)
        .header('cache-control', 'public, max-age=300')
        .header('etag', `"${skill.digest.slice('sha256:'.length)}"`)
        .send(skill.content);
    },
  );

  app.get<{ Params: { code: string } }>('/problems/:code', hidden, async (request, reply) => {
    if (!Object.hasOwn(problemCatalogue, request.params.code)) return reply.callNotFound();
    return reply.type('text/html; charset=utf-8').send(renderProblemPage(request.params.code as ProblemCode));
  });
}
