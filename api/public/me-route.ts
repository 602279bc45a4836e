// GET /api/v1/me: the profile behind a bearer token, with RFC 6750 / RFC 9728 challenges otherwise.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { bearerChallenge, hasQueryToken, readBearer } from '../shared/bearer.ts';
import { verifyToken } from '../shared/identity.ts';
import { ProblemError } from '../shared/problem.ts';
import { problemResponses } from './problem-responses.ts';
import { meSchema } from './schemas.ts';

export function registerMeRoute(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers } = fastify.colony;

  const refuse = (detail: string, error?: Parameters<typeof bearerChallenge>[1]): never => {
    throw new ProblemError('unauthorized', detail, {
      headers: { 'www-authenticate': bearerChallenge(config.baseUrl, error) },
    });
  };

  app.get(
    '/me',
    {
      schema: {
        operationId: 'getMe',
        summary: 'The account profile of the bearer token',
        tags: ['public', 'identity'],
        security: [{ bearer: [] }],
        response: { 200: meSchema, ...problemResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const bearer = readBearer(request.headers.authorization);
      if (bearer.kind === 'none' && hasQueryToken(request.query)) {
        refuse('Tokens are accepted only in the Authorization header, never in the query string.', {
          code: 'invalid_request',
          description: 'send the token as Authorization: Bearer <token>',
        });
      }
      if (bearer.kind === 'none') refuse('A bearer token is required.');
      if (bearer.kind === 'malformed') {
        refuse(bearer.reason, { code: 'invalid_request', description: bearer.reason });
      }
      const principal = bearer.kind === 'token' ? await verifyToken(verifiers, bearer.token) : null;
      if (!principal) {
        return refuse('The bearer token is invalid, expired or revoked.', {
          code: 'invalid_token',
          description: 'the token is invalid, expired or revoked',
        });
      }
      return {
        id: principal.subject,
        type: principal.type,
        name: principal.name,
        ...(principal.email ? { email: principal.email } : {}),
        scopes: principal.scopes,
        offices: principal.offices,
        credential: principal.credential,
      };
    },
  );
}
