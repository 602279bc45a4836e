// POST /api/v1/offices/{officeID}/agent-credentials: the service_auth flow of spec 5.5 through the
// API. An owner provisions a credential for one agent of one office of theirs; the answer carries it once.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dnsLabel } from '../../../integrations/registry/names.ts';
import { problemResponses } from '../../public/problem-responses.ts';
import { ProblemError } from '../../shared/problem.ts';
import type { IdentityServices } from '../identity-services.ts';
import { presentKey } from './present-key.ts';
import { createdApiKeySchema } from './schemas.ts';

export const agentCredentialBody = z
  .strictObject({
    agentName: dnsLabel.describe('The agent the credential is for (its colony.ai/agent name)'),
    expiresInDays: z.number().int().min(1).max(3650).nullable().default(null),
  })
  .meta({ id: 'CreateAgentCredential' });

export function agentCredentialRoute(
  fastify: FastifyInstance,
  identity: IdentityServices,
  /** The account behind the request's OAuth token with keys:write (keys cannot mint keys). */
  accountOf: (request: FastifyRequest) => Promise<string>,
): void {
  fastify.withTypeProvider<ZodTypeProvider>().post(
    '/offices/:officeID/agent-credentials',
    {
      schema: {
        security: [{ bearer: [] }],
        tags: ['identity'],
        operationId: 'createAgentCredential',
        summary: 'Provision an agent credential: an API key bound to this office with the agent scopes',
        description:
          'The service_auth flow: an owner of the office provisions a credential for one of its agents. It may operate that office (offices:read, offices:write) but never acts as the owner (members, creating or deleting offices). Listed and revoked like any key (GET/DELETE /api/v1/keys).',
        params: z.strictObject({ officeID: dnsLabel }),
        body: agentCredentialBody,
        response: { 201: createdApiKeySchema, ...problemResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const accountId = await accountOf(request);
      const result = await identity.apiKeys.createAgentCredential(accountId, {
        officeId: request.params.officeID,
        ...request.body,
      });
      if (!result.ok)
        throw new ProblemError(result.reason === 'too_many' ? 'conflict' : 'forbidden', result.detail);
      request.log.info(
        { keyId: result.key.id, accountId, agent: result.key.agentName },
        'agent credential created',
      );
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...presentKey(result.key), key: result.token });
    },
  );
}
