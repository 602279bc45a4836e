// The signed-in account's own pages: /account, creating (and once showing) and revoking API keys,
// disconnecting apps.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { Account } from '../accounts/account.ts';
import { requireAccount } from '../accounts/current-account.ts';
import type { IdentityServices } from '../identity-services.ts';
import { apiKeyPrefix } from '../keys/api-key-format.ts';
import type { ApiKeyRecord } from '../keys/api-keys-repo.ts';
import { renderAccountPage, renderKeyAlreadyShownPage, renderKeyCreatedPage } from './account-page.ts';
import { csrfToken, isGenuineFormPost } from './csrf.ts';
import type { FieldErrors } from './form-kit.ts';
import { fieldErrors, keyForm, plainForm } from './forms.ts';
import { KEY_CREATED_PATH, setRevealTicket, takeRevealTicket } from './key-reveal-cookie.ts';
import { forgedPost, html } from './page-reply.ts';

const hidden = { schema: { hide: true } };

/** What a section another domain adds to /account is given to handle its own form posts. */
export interface AccountFormKit {
  /** The signed-in account behind a genuine form post, or undefined once the reply is sent. */
  poster(request: FastifyRequest, reply: FastifyReply): Promise<Account | undefined>;
  /** Shows a new key once, on the page the reply redirects to. */
  reveal(
    reply: FastifyReply,
    accountId: string,
    created: { key: ApiKeyRecord; token: string },
  ): Promise<FastifyReply>;
}

/** A section of /account rendered by another domain, with the form routes it posts to. */
export interface AccountSection {
  render(accountId: string, csrf: string): Promise<string>;
  routes(app: FastifyInstance, kit: AccountFormKit): void;
}

export function accountRoutes(
  app: FastifyInstance,
  opts: {
    config: Config;
    identity: IdentityServices;
    planSection?: (accountId: string) => Promise<string>;
    officeSection?: AccountSection;
    usageSection?: (accountId: string) => Promise<string>;
  },
): void {
  const { config, identity } = opts;

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    account: Account,
    status = 200,
    keyErrors?: FieldErrors,
  ) => {
    const csrf = csrfToken(request, reply);
    const [offices, keys, apps, plan, officeSection, usage] = await Promise.all([
      identity.officeMembers.ofAccount(account.id),
      identity.apiKeys.list(account.id),
      identity.connectedApps.list(account.id),
      opts.planSection?.(account.id) ?? '',
      opts.officeSection?.render(account.id, csrf) ?? '',
      opts.usageSection?.(account.id) ?? '',
    ]);
    return html(
      reply,
      status,
      renderAccountPage({
        account,
        offices,
        keys,
        apps,
        planSection: plan,
        officeSection,
        usageSection: usage,
        csrf,
        keyPrefix: apiKeyPrefix(config.environment),
        ...(keyErrors ? { keyErrors } : {}),
      }),
    );
  };

  /** The signed-in account behind a genuine form post, or undefined once the reply is sent. */
  const poster = async (request: FastifyRequest, reply: FastifyReply): Promise<Account | undefined> => {
    const account = await requireAccount(request, reply);
    if (!account) return undefined;
    const parsed = plainForm.safeParse(request.body ?? {});
    if (!parsed.success || !isGenuineFormPost(request, parsed.data._csrf)) {
      await forgedPost(reply);
      return undefined;
    }
    return account;
  };

  // Post-redirect-get: the key is shown by the page this redirects to, once, so a reload or a
  // resubmission never makes a second key and the key is never in a URL.
  const reveal: AccountFormKit['reveal'] = async (reply, accountId, { key, token }) => {
    const { id: keyId, name, hint } = key;
    const ticket = await identity.keyReveals.stash(accountId, { keyId, name, hint, token });
    setRevealTicket(reply, identity.cookiePolicy, ticket);
    return reply.redirect(KEY_CREATED_PATH, 303);
  };
  opts.officeSection?.routes(app, { poster, reveal });

  app.get('/account', hidden, async (request, reply) => {
    const account = await requireAccount(request, reply);
    return account ? show(request, reply, account) : reply;
  });

  app.post('/account/keys', hidden, async (request, reply) => {
    const account = await poster(request, reply);
    if (!account) return reply;
    const parsed = keyForm.safeParse(request.body);
    if (!parsed.success) return show(request, reply, account, 400, fieldErrors(parsed.error));
    const result = await identity.apiKeys.create(account.id, parsed.data);
    if (!result.ok)
      return show(request, reply, account, result.reason === 'too_many' ? 409 : 403, { key: result.detail });
    request.log.info({ keyId: result.key.id, accountId: account.id }, 'api key created');
    return reveal(reply, account.id, result);
  });

  app.get(KEY_CREATED_PATH, hidden, async (request, reply) => {
    const account = await requireAccount(request, reply);
    if (!account) return reply;
    const ticket = takeRevealTicket(request, reply, identity.cookiePolicy);
    const shown = await identity.keyReveals.take(account.id, ticket);
    return html(reply, 200, shown ? renderKeyCreatedPage(shown) : renderKeyAlreadyShownPage());
  });

  app.post<{ Params: { id: string } }>('/account/keys/:id/revoke', hidden, async (request, reply) => {
    const account = await poster(request, reply);
    if (!account) return reply;
    await identity.apiKeys.revoke(account.id, request.params.id);
    return reply.redirect('/account', 303);
  });

  app.post<{ Params: { grantId: string } }>(
    '/account/apps/:grantId/revoke',
    hidden,
    async (request, reply) => {
      const account = await poster(request, reply);
      if (!account) return reply;
      await identity.connectedApps.revoke(account.id, request.params.grantId);
      return reply.redirect('/account', 303);
    },
  );
}
