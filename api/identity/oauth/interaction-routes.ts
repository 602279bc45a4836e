// The authorization server's interactions on Colony's pages: sign-in through the browser session,
// then consent. oidc-provider hands the browser here and takes it back with the result.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Interaction, InteractionResults, PromptDetail } from 'oidc-provider';
import type { Config } from '../../config.ts';
import { page } from '../../shared/html.ts';
import { currentAccount, signInUrl } from '../accounts/current-account.ts';
import type { IdentityServices } from '../identity-services.ts';
import { csrfToken, isGenuineFormPost } from '../pages/csrf.ts';
import { forgedPost } from '../pages/page-reply.ts';
import { renderConsentPage } from './consent-page.ts';
import { findResourceServer } from './resources.ts';
import { isOidcScope } from './scope-grants.ts';

type Params = { Params: { uid: string } };
const hidden = { schema: { hide: true } };

function expiredPage(reply: FastifyReply) {
  return reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(
      page(
        'Request expired',
        '<h1>This authorization request has expired</h1><p>Return to the application and start again.</p>',
      ),
    );
}

interface MissingDetails {
  missingOIDCScope?: string[];
  missingOIDCClaims?: string[];
  missingResourceScopes?: Record<string, string[]>;
}

const missingOf = (prompt: PromptDetail) => (prompt.details ?? {}) as MissingDetails;

/** Adds what the consent prompt found missing to the client's grant; its id, or undefined if gone. */
async function approve(
  provider: Provider,
  interaction: Interaction,
  accountId: string,
): Promise<string | undefined> {
  const grant = interaction.grantId
    ? await provider.Grant.find(interaction.grantId)
    : new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
  if (!grant) return undefined;
  const missing = missingOf(interaction.prompt);
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}

export async function interactionRoutes(
  app: FastifyInstance,
  opts: { config: Config; identity: IdentityServices },
): Promise<void> {
  await app.register(formbody, { bodyLimit: 16_384 });
  const { config, identity } = opts;
  const provider = identity.authorizationServer;

  /** The interaction behind this browser's cookie, or undefined when it expired or never existed. */
  const details = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const found = await provider.interactionDetails(request.raw, reply.raw);
      return found.uid === (request.params as { uid: string }).uid ? found : undefined;
    } catch {
      return undefined;
    }
  };
  const finish = async (request: FastifyRequest, reply: FastifyReply, result: InteractionResults) => {
    const to = await provider.interactionResult(request.raw, reply.raw, result, {
      mergeWithLastSubmission: true,
    });
    return reply.redirect(to, 303);
  };

  app.get<Params>('/oauth/interaction/:uid', hidden, async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return expiredPage(reply);
    const account = await currentAccount(request);
    if (!account) return reply.redirect(signInUrl(request), 303);
    // Signing in is Colony's own page; its session is the login, whichever prompt this is.
    if (interaction.prompt.name === 'login' || interaction.session?.accountId !== account.id) {
      return finish(request, reply, { login: { accountId: account.id } });
    }
    const client = await provider.Client.find(String(interaction.params.client_id));
    if (!client) return expiredPage(reply);
    const missing = missingOf(interaction.prompt);
    // The provider counts every configured scope as an OpenID one (registration needs them listed),
    // so only the real OpenID scopes come from there; resource scopes are the resources' own.
    const scopes = new Set([
      ...(missing.missingOIDCScope ?? []).filter(isOidcScope),
      ...Object.values(missing.missingResourceScopes ?? {}).flat(),
    ]);
    const redirectUri = interaction.params.redirect_uri;
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        renderConsentPage({
          uid: interaction.uid,
          account,
          clientName: client.clientName ?? client.clientId,
          clientId: client.clientId,
          redirectHost: typeof redirectUri === 'string' ? URL.parse(redirectUri)?.host : undefined,
          scopes: [...scopes],
          resources: Object.keys(missing.missingResourceScopes ?? {}).map((identifier) => ({
            identifier,
            name: findResourceServer(config.baseUrl, identifier)?.name ?? identifier,
          })),
          csrf: csrfToken(request, reply),
        }),
      );
  });

  app.post<Params>('/oauth/interaction/:uid/confirm', hidden, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!isGenuineFormPost(request, body._csrf)) return forgedPost(reply);
    const interaction = await details(request, reply);
    if (!interaction) return expiredPage(reply);
    const account = await currentAccount(request);
    if (!account || interaction.session?.accountId !== account.id) {
      return reply.redirect(`/oauth/interaction/${encodeURIComponent(interaction.uid)}`, 303);
    }
    if (interaction.prompt.name !== 'consent') return finish(request, reply, {});
    const grantId = await approve(provider, interaction, account.id);
    if (!grantId) return expiredPage(reply);
    const clientId = interaction.params.client_id;
    request.log.info({ accountId: account.id, clientId }, 'oauth grant approved');
    return finish(request, reply, { consent: { grantId } });
  });

  app.post<Params>('/oauth/interaction/:uid/deny', hidden, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!isGenuineFormPost(request, body._csrf)) return forgedPost(reply);
    const interaction = await details(request, reply);
    if (!interaction) return expiredPage(reply);
    return finish(request, reply, {
      error: 'access_denied',
      error_description: 'The account owner denied the request.',
    });
  });
}
