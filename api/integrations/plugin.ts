// The integration registry on /api/v1/integrations: definitions for the setup wizard, alias search
// and each guide. Public: a definition holds no secret.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import { dnsLabel } from '../../integrations/registry/names.ts';
import type { Config } from '../config.ts';
import { standardProblems } from '../public/problem-responses.ts';
import { ProblemError } from '../shared/problem.ts';
import { presentDefinition } from './presenters.ts';

const credentialField = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(['text', 'password']),
  required: z.boolean(),
  hint: z.string().nullable(),
  helpUrl: z.string().nullable(),
  helpLabel: z.string(),
});

export const definitionSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string(),
    category: z.enum(['llm', 'communication', 'services']),
    aliases: z.array(z.string()),
    verified: z.boolean(),
    capabilities: z.array(z.string()),
    channels: z.array(z.string()),
    wizard: z.enum(['guide', 'interactive', 'oauth', 'auto']),
    guideFile: z.string(),
    guideUrl: z.string(),
    requiredSecrets: z.array(credentialField),
    agentEnvVars: z.array(z.string()),
    officeLevel: z.boolean(),
    multiInstance: z.boolean(),
    k8sSecretName: z.string().describe('The Secret name pattern'),
    version: z.string(),
    dependsOn: z.array(z.string()),
    provides: z.array(z.string()),
    conflicts: z.array(z.string()),
    composedWith: z.array(z.string()),
    layers: z.array(z.string()).describe('The manifest v2 layers this integration uses'),
    oauth: z.object({ scopes: z.array(z.string()) }).nullable(),
  })
  .meta({ id: 'IntegrationDefinition' });

export interface IntegrationsOptions {
  config: Config;
  registry: IntegrationRegistry;
}

export async function integrationsPlugin(fastify: FastifyInstance, opts: IntegrationsOptions): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { registry, config } = opts;
  const find = (id: string) => {
    const m = registry.get(id);
    if (!m) throw new ProblemError('not_found', `No integration ${id} in the registry.`);
    return m;
  };

  app.get(
    '/',
    {
      schema: {
        tags: ['integrations'],
        operationId: 'listIntegrations',
        summary: 'The integration registry, optionally searched by name, alias or capability',
        querystring: z.strictObject({
          q: z.string().max(100).optional().describe('Search term; aliases resolve to their integration'),
          category: z.enum(['llm', 'communication', 'services']).optional(),
        }),
        response: { 200: z.object({ integrations: z.array(definitionSchema) }), ...standardProblems },
      },
    },
    async (request) => {
      const { q, category } = request.query;
      const found = q ? registry.search(q) : registry.list();
      return {
        integrations: found
          .filter((m) => !category || m.category === category)
          .map((m) => presentDefinition(m, config.baseUrl)),
      };
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: ['integrations'],
        operationId: 'getIntegration',
        summary: 'One integration definition with the credential fields of its setup wizard',
        params: z.strictObject({ id: dnsLabel }),
        response: { 200: definitionSchema, ...standardProblems },
      },
    },
    async (request) => presentDefinition(find(request.params.id), config.baseUrl),
  );

  app.get(
    '/:id/guide',
    {
      schema: {
        tags: ['integrations'],
        operationId: 'getIntegrationGuide',
        summary: 'The integration’s setup guide (markdown)',
        params: z.strictObject({ id: dnsLabel }),
        response: {
          200: { description: 'The guide', content: { 'text/markdown': { schema: z.string() } } },
          ...standardProblems,
        },
      },
    },
    async (request, reply) => {
      find(request.params.id);
      const guide = (registry.guide(request.params.id) ?? '').replaceAll('{base_url}', config.baseUrl);
      return reply
        .type('text/markdown; charset=utf-8')
        .serializer((s) => s as string)
        .send(guide);
    },
  );
}
