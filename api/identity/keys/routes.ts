// /api/v1/keys: API keys managed with an account's OAuth token (the CLI's device-code session).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { problemResponses } from '../../public/problem-responses.ts';
import { authenticate, requireScope } from '../../shared/authenticate.ts';
import type { CredentialVerifier } from '../../shared/identity.ts';
import { ProblemError } from '../../shared/problem.ts';
import type { IdentityServices } from '../identity-services.ts';
import { agentCredentialRoute } from './agent-credential-route.ts';
import { presentKey } from './present-key.ts';
import { apiKeyListSchema, createdApiKeySchema, createKeyBody, keyParams } from './schemas.ts';

const secured = { security: [{ bearer: [] }], tags: ['identity'] };
const problems = problemResponses(400, 401, 403, 404, 409, 429);

export interface ApiKeyRoutesOptions {
  config: Config;
  verifiers: CredentialVerifier[];
  identity: IdentityServices;
}

export async function apiKeyRoutes(fastify: FastifyInstance, opts: ApiKeyRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, identity } = opts;

  /** The account whose keys these are; only an account's own OAuth grant may manage them. */
  const owner = async (request: FastifyRequest): Promise<string> => {
    const principal = await authenticate(request, config.baseUrl, verifiers);
    requireScope(principal, 'keys:write', config.baseUrl);
    if (!principal.accountId || principal.credential !== 'oauth_access_token') {
      throw new ProblemError(
        'forbidden',
        'API keys are managed with an account’s OAuth token (colony login) or at /account.',
      );
    }
    return principal.accountId;
  };

  app.get(
    '/keys',
    {
      schema: {
        ...secured,
        operationId: 'listApiKeys',
        summary: 'Your active API keys (never the keys themselves)',
        response: { 200: apiKeyListSchema, ...problems },
      },
    },
    async (request) => ({ keys: (await identity.apiKeys.list(await owner(request))).map(presentKey) }),
  );

  app.post(
    '/keys',
    {
      schema: {
        ...secured,
        operationId: 'createApiKey',
        summary: 'Create an API key; the answer carries it once',
        body: createKeyBody,
        response: { 201: createdApiKeySchema, ...problems },
      },
    },
    async (request, reply) => {
      const result = await identity.apiKeys.create(await owner(request), request.body);
      if (!result.ok)
        throw new ProblemError(result.reason === 'too_many' ? 'conflict' : 'forbidden', result.detail);
      request.log.info({ keyId: result.key.id, accountId: result.key.accountId }, 'api key created');
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...presentKey(result.key), key: result.token });
    },
  );

  agentCredentialRoute(fastify, identity, owner);

  app.delete(
    '/keys/:id',
    {
      schema: {
        ...secured,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key; it fails at once',
        params: keyParams,
        response: { 204: z.null().describe('Revoked'), ...problems },
      },
    },
    async (request, reply) => {
      if (!(await identity.apiKeys.revoke(await owner(request), request.params.id))) {
        throw new ProblemError('not_found', `No active key ${request.params.id} on your account.`);
      }
      return reply.code(204).send(null);
    },
  );
}
