// /api/v1/agent-platforms: an operator (the bootstrap token) registers the agent platforms that get
// ACP order webhooks. The platform's API key is shown once; the webhook secret is never shown again.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Storage } from '../../app-storage.ts';
import { hashPlatformKey, newPlatformKey } from '../../commerce/order-webhooks/platform-key.ts';
import type { AgentPlatform } from '../../commerce/order-webhooks/platforms-repo.ts';
import type { Config } from '../../config.ts';
import { problemResponses } from '../../public/problem-responses.ts';
import { authenticate } from '../../shared/authenticate.ts';
import type { CredentialVerifier } from '../../shared/identity.ts';
import { ProblemError } from '../../shared/problem.ts';
import {
  createdPlatformSchema,
  createPlatformBody,
  platformListSchema,
  platformParams,
  platformSchema,
  updatePlatformBody,
} from './platform-schemas.ts';

const secured = { security: [{ bearer: [] }], tags: ['commerce'] };
const problems = problemResponses(400, 401, 403, 404, 409, 429);

const present = (p: AgentPlatform) => ({
  id: p.id,
  name: p.name,
  apiVersion: p.apiVersion as z.infer<typeof platformSchema>['apiVersion'],
  webhookUrl: p.webhookUrl,
  createdAt: new Date(p.createdAt).toISOString(),
  updatedAt: new Date(p.updatedAt).toISOString(),
});

export interface PlatformRoutesOptions {
  config: Config;
  verifiers: CredentialVerifier[];
  storage: Storage;
  now: () => number;
}

export async function agentPlatformRoutes(
  fastify: FastifyInstance,
  opts: PlatformRoutesOptions,
): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, storage, now } = opts;
  const platforms = storage.agentPlatforms;

  /** Who sells through which agent is the operator's to say: the bootstrap token only. */
  const operator = async (request: FastifyRequest): Promise<void> => {
    const principal = await authenticate(request, config.baseUrl, verifiers);
    if (principal.credential !== 'bootstrap_token')
      throw new ProblemError('forbidden', 'Agent platforms are managed with the operator’s bootstrap token.');
  };
  const missing = (id: string) => new ProblemError('not_found', `No agent platform ${id} is registered.`);

  app.get(
    '/agent-platforms',
    {
      schema: {
        ...secured,
        operationId: 'listAgentPlatforms',
        summary: 'Registered agent platforms and their order webhook endpoints (never their secrets)',
        response: { 200: platformListSchema, ...problems },
      },
    },
    async (request) => {
      await operator(request);
      return { platforms: (await platforms.list()).map(present) };
    },
  );

  app.post(
    '/agent-platforms',
    {
      schema: {
        ...secured,
        operationId: 'createAgentPlatform',
        summary: 'Register an agent platform for ACP order webhooks; the answer carries its API key once',
        body: createPlatformBody,
        response: { 201: createdPlatformSchema, ...problems },
      },
    },
    async (request, reply) => {
      await operator(request);
      const apiKey = newPlatformKey();
      const { id, name, apiVersion, webhookUrl, webhookSecret } = request.body;
      const created = await platforms.create(
        { id, name, apiVersion, webhookUrl, webhookSecret, keyHash: hashPlatformKey(apiKey) },
        now(),
      );
      if (!created) throw new ProblemError('conflict', `Agent platform ${id} is already registered.`);
      request.log.info({ platformId: id }, 'agent platform registered');
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...present(created), apiKey });
    },
  );

  app.get(
    '/agent-platforms/:id',
    {
      schema: {
        ...secured,
        operationId: 'getAgentPlatform',
        summary: 'One agent platform (never its secret)',
        params: platformParams,
        response: { 200: platformSchema, ...problems },
      },
    },
    async (request) => {
      await operator(request);
      const found = await platforms.get(request.params.id);
      if (!found) throw missing(request.params.id);
      return present(found);
    },
  );

  app.patch(
    '/agent-platforms/:id',
    {
      schema: {
        ...secured,
        operationId: 'updateAgentPlatform',
        summary: 'Change a platform’s name, ACP version, webhook endpoint or secret',
        params: platformParams,
        body: updatePlatformBody,
        response: { 200: platformSchema, ...problems },
      },
    },
    async (request) => {
      await operator(request);
      const updated = await platforms.update(request.params.id, request.body, now());
      if (!updated) throw missing(request.params.id);
      request.log.info(
        { platformId: updated.id, fields: Object.keys(request.body) },
        'agent platform changed',
      );
      return present(updated);
    },
  );

  app.delete(
    '/agent-platforms/:id',
    {
      schema: {
        ...secured,
        operationId: 'deleteAgentPlatform',
        summary:
          'Remove an agent platform: its key stops naming checkouts and its pending events are dropped',
        params: platformParams,
        response: { 204: z.null().describe('Removed'), ...problems },
      },
    },
    async (request, reply) => {
      await operator(request);
      if (!(await platforms.remove(request.params.id))) throw missing(request.params.id);
      request.log.info({ platformId: request.params.id }, 'agent platform removed');
      return reply.code(204).send(null);
    },
  );
}
