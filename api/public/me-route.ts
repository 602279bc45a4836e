// GET /api/v1/me: the profile behind a bearer token, with RFC 6750 / RFC 9728 challenges otherwise.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config.ts';
import type { IdentityServices } from '../identity/identity-services.ts';
import { authenticate } from '../shared/authenticate.ts';
import type { CredentialVerifier } from '../shared/identity.ts';
import { problemResponses } from './problem-responses.ts';
import { meSchema } from './schemas.ts';

export interface MeRouteOptions {
  config: Config;
  verifiers: CredentialVerifier[];
  identity: IdentityServices;
}

export function registerMeRoute(fastify: FastifyInstance, opts: MeRouteOptions): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, identity } = opts;

  const accountOf = async (accountId: string | undefined) => {
    // The view the token was just verified with, from the credential cache.
    const view = accountId ? await identity.accountViews.view(accountId) : undefined;
    if (!view) return null;
    const { account, memberOf: memberships } = view;
    return {
      id: account.id,
      email: account.email,
      name: account.name,
      createdAt: new Date(account.createdAt).toISOString(),
      memberships: memberships.map((m) => ({ officeId: m.officeId, role: m.role })),
    };
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
      const principal = await authenticate(request, config.baseUrl, verifiers);
      return {
        id: principal.subject,
        type: principal.type,
        name: principal.name,
        ...(principal.email ? { email: principal.email } : {}),
        scopes: principal.scopes,
        offices: principal.offices,
        credential: principal.credential,
        ...(principal.credentialId ? { credentialId: principal.credentialId } : {}),
        ...(principal.clientId ? { clientId: principal.clientId } : {}),
        ...(principal.resource ? { resource: principal.resource } : {}),
        account: await accountOf(principal.accountId),
      };
    },
  );
}
