// The office section of /account and the two forms it posts: creating an office self-serve (the
// same path as PUT /api/v1/offices/{officeID} with an account credential) and provisioning an agent
// credential (the service_auth flow of spec 5.5, shown once like any new key).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { dnsLabel } from '../../../integrations/registry/names.ts';
import type { Entitlements } from '../../commerce/entitlements/entitlements.ts';
import type { Account } from '../../identity/accounts/account.ts';
import type { IdentityServices } from '../../identity/identity-services.ts';
import type { AccountFormKit, AccountSection } from '../../identity/pages/account-routes.ts';
import { html } from '../../identity/pages/page-reply.ts';
import { ProblemError } from '../../shared/problem.ts';
import type { OfficeCreation } from '../office-creation.ts';
import { renderOfficesSection, renderRefusalPage } from './offices-section-page.ts';

const hide = { schema: { hide: true } };

const officeForm = z.object({ officeId: dnsLabel });
const agentForm = z.object({
  office: dnsLabel,
  agent: dnsLabel,
  expires: z
    .enum(['never', '30', '90', '365'])
    .default('never')
    .transform((e) => (e === 'never' ? null : Number(e))),
});

const refuse = (reply: FastifyReply, status: number, title: string, detail: string) =>
  html(reply, status, renderRefusalPage(title, detail));

/** A form of this section: a genuine post by the signed-in account, its fields parsed, a refusal shown as a page. */
function form<T>(
  app: FastifyInstance,
  kit: AccountFormKit,
  path: string,
  schema: z.ZodType<T>,
  refusal: { title: string; invalid: string },
  handle: (account: Account, fields: T, reply: FastifyReply) => Promise<FastifyReply>,
): void {
  app.post(path, hide, async (request, reply) => {
    const account = await kit.poster(request, reply);
    if (!account) return reply;
    const parsed = schema.safeParse(request.body);
    if (!parsed.success) return refuse(reply, 400, refusal.title, refusal.invalid);
    try {
      return await handle(account, parsed.data, reply);
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
      return refuse(reply, err.status, refusal.title, err.detail);
    }
  });
}

export function accountOfficesSection(deps: {
  identity: IdentityServices;
  entitlements: Entitlements;
  officeCreation: OfficeCreation;
}): AccountSection {
  const { identity, entitlements, officeCreation } = deps;
  return {
    async render(accountId, csrf) {
      const [e, billed, memberships] = await Promise.all([
        entitlements.ofAccount(accountId),
        entitlements.billing.officesOf(accountId),
        identity.officeMembers.ofAccount(accountId),
      ]);
      const owned = memberships.filter((m) => m.role === 'owner').map((m) => m.officeId);
      return renderOfficesSection({ entitlements: e, billed, owned, csrf });
    },

    routes(app: FastifyInstance, kit) {
      form(
        app,
        kit,
        '/account/offices',
        officeForm,
        {
          title: 'Office not created',
          invalid: 'An office name is lowercase letters, digits and hyphens (at most 63).',
        },
        async (account, { officeId }, reply) => {
          await officeCreation.createFor(account.id, officeId);
          reply.log.info({ officeId, accountId: account.id }, 'self-serve office created');
          return reply.redirect('/account', 303);
        },
      );

      form(
        app,
        kit,
        '/account/agent-credentials',
        agentForm,
        {
          title: 'Credential not created',
          invalid: 'Choose an office and name the agent (lowercase letters, digits and hyphens).',
        },
        async (account, { office, agent, expires }, reply) => {
          const result = await identity.apiKeys.createAgentCredential(account.id, {
            officeId: office,
            agentName: agent,
            expiresInDays: expires,
          });
          if (!result.ok)
            throw new ProblemError(result.reason === 'too_many' ? 'conflict' : 'forbidden', result.detail);
          reply.log.info({ keyId: result.key.id, accountId: account.id, agent }, 'agent credential created');
          return kit.reveal(reply, account.id, result);
        },
      );
    },
  };
}
