// GET /api/v1/me: the profile behind a bearer token, with RFC 6750 / RFC 9728 challenges otherwise.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { AccountView } from '../identity/account-views.ts';
import type { IdentityServices } from '../identity/identity-services.ts';
import { authenticate } from '../shared/authenticate.ts';
import type { CredentialVerifier } from '../shared/identity.ts';
import { problemResponses } from './problem-responses.ts';
import { meSchema, type usageSchema } from './schemas.ts';

export interface MeRouteOptions {
  config: Config;
  verifiers: CredentialVerifier[];
  identity: IdentityServices;
  /** The account's usage this period (api/commerce/usage); without it /me has no `usage` member. */
  usage?: ((accountId: string) => Promise<z.input<typeof usageSchema> | null>) | undefined;
}

type MeAccount = NonNullable<z.input<typeof meSchema>['account']>;

export function registerMeRoute(fastify: FastifyInstance, opts: MeRouteOptions): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, identity } = opts;

  // Views are cached with the credential, so each one is presented once, not at every request.
  const presented = new WeakMap<AccountView, MeAccount>();
  const accountOf = async (accountId: string | undefined): Promise<MeAccount | null> => {
    const view = accountId ? await identity.accountViews.view(accountId) : undefined;
    if (!view) return null;
    let shown = presented.get(view);
    if (!shown) {
      const { account, memberOf } = view;
      shown = {
        id: account.id,
        email: account.email,
        name: account.name,
        createdAt: new Date(account.createdAt).toISOString(),
        memberships: memberOf.map((m) => ({ officeId: m.officeId, role: m.role })),
      };
      presented.set(view, shown);
    }
    return shown;
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
        ...(opts.usage ? { usage: principal.accountId ? await opts.usage(principal.accountId) : null } : {}),
      };
    },
  );
}
