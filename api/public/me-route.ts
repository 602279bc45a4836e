// GET /api/v1/me: the profile behind a bearer token, with RFC 6750 / RFC 9728 challenges otherwise.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { AccountView } from '../identity/account-views.ts';
import type { IdentityServices } from '../identity/identity-services.ts';
import { authenticateNow } from '../shared/authenticate.ts';
import type { CredentialVerifier, Principal } from '../shared/identity.ts';
import { settledAnswer } from '../shared/json-serializer.ts';
import { problemResponses } from './problem-responses.ts';
import { meSchema, type usageSchema } from './schemas.ts';

type Usage = z.input<typeof usageSchema> | null;
type MeBody = z.input<typeof meSchema>;

export interface MeRouteOptions {
  config: Config;
  verifiers: CredentialVerifier[];
  identity: IdentityServices;
  /**
   * The account's usage this period (api/commerce/usage), without a promise when it is remembered;
   * without it /me has no `usage` member.
   */
  usage?: ((accountId: string) => Usage | Promise<Usage>) | undefined;
}

/** The answer for one principal, account view and usage summary: a pure function of the three. */
function meBody(principal: Principal, view: AccountView | undefined, usage: Usage | undefined): MeBody {
  const account = view && {
    id: view.account.id,
    email: view.account.email,
    name: view.account.name,
    createdAt: new Date(view.account.createdAt).toISOString(),
    memberships: view.memberOf.map((m) => ({ officeId: m.officeId, role: m.role })),
  };
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
    account: account ?? null,
    ...(usage !== undefined ? { usage } : {}),
  };
}

export function registerMeRoute(fastify: FastifyInstance, opts: MeRouteOptions): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, identity, usage } = opts;

  // The principal, the account view and the usage summary are each remembered objects that are replaced
  // when what they say changes (a revocation or membership change flushes the first two), so an answer
  // built from the same three is still the right one: built and serialised once, not at every request.
  const built = new WeakMap<
    Principal,
    { view: AccountView | undefined; usage: Usage | undefined; body: MeBody }
  >();
  const answer = (principal: Principal, view: AccountView | undefined, used: Usage | undefined) => {
    const known = built.get(principal);
    if (known && known.view === view && known.usage === used) return known.body;
    const body = settledAnswer(meBody(principal, view, used));
    built.set(principal, { view, usage: used, body });
    return body;
  };

  // Everything /me reads is usually in memory: answered without a promise unless something must wait.
  const profile = (principal: Principal): MeBody | Promise<MeBody> => {
    const { accountId } = principal;
    const view = accountId ? identity.accountViews.viewNow(accountId) : undefined;
    const used = usage ? (accountId ? usage(accountId) : null) : undefined;
    if (view instanceof Promise || used instanceof Promise)
      return Promise.all([view, used]).then(([v, u]) => answer(principal, v, u));
    return answer(principal, view, used);
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
    (request) => {
      const principal = authenticateNow(request, config.baseUrl, verifiers);
      return principal instanceof Promise ? principal.then(profile) : profile(principal);
    },
  );
}
