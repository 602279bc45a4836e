// The Connect flow's browser routes (contracts §3): GET /connect/{id}?office=…[&instance=…] sends a
// signed-in member of the office to the provider; GET /connect/callback stores the tokens.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DNS_LABEL } from '../../integrations/registry/names.ts';
import type { Storage } from '../app-storage.ts';
import type { Config } from '../config.ts';
import type { Account } from '../identity/accounts/account.ts';
import { requireAccount } from '../identity/accounts/current-account.ts';
import { useBrowserSession } from '../identity/browser-session.ts';
import { canActOnOffice } from '../identity/offices/office-access.ts';
import { securePages } from '../shared/page-security.ts';
import { ProblemError } from '../shared/problem.ts';
import type { ConnectState } from './connect-repo.ts';
import { ConnectError, type ConnectService, redirectUri } from './connect-service.ts';
import { renderConnectedPage, renderConnectFailedPage } from './pages.ts';
import { ProviderError } from './provider.ts';

const label = z.string().max(63).regex(DNS_LABEL, 'must be lowercase letters, digits and hyphens');
const startQuery = z.object({ office: label, instance: label.optional() });
const callbackQuery = z.object({
  state: z.string().min(1).max(512),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(1024).optional(),
});

function fail(reply: FastifyReply, status: number, message: string, retryUrl?: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(renderConnectFailedPage({ status, message, retryUrl }));
}

/** Known refusals become a page with their status; anything else is a real error. */
function failFrom(reply: FastifyReply, err: unknown) {
  if (err instanceof ConnectError) return fail(reply, err.status, err.message);
  if (err instanceof ProblemError) return fail(reply, err.status, err.message);
  if (err instanceof ProviderError)
    return fail(reply, 502, `The provider did not grant access (${err.code}). Try connecting again.`);
  throw err;
}

const firstIssue = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ');

type CallbackQuery = z.infer<typeof callbackQuery>;

/** The URL the provider redirected to, on the registered redirect URI whatever proxy sits in front. */
function callbackUrl(baseUrl: string, requestUrl: string): URL {
  const url = new URL(redirectUri(baseUrl));
  url.search = new URL(requestUrl, 'http://local').search;
  return url;
}

/** Why a consumed state may not be completed by this request, or undefined when it may. */
async function refusal(
  state: ConnectState,
  account: Account,
  q: CallbackQuery,
): Promise<{ status: number; message: string; retry?: string } | undefined> {
  const retry = `/connect/${state.integrationId}?office=${state.officeId}${state.instanceLabel ? `&instance=${state.instanceLabel}` : ''}`;
  if (state.accountId !== account.id)
    return {
      status: 403,
      message: 'This connection was started by someone else. Start again from your own account.',
    };
  if (!(await canActOnOffice(account, state.officeId)))
    return { status: 403, message: `You may not act on office ${state.officeId}.` };
  if (q.error) return { status: 400, message: `The provider did not grant access (${q.error}).`, retry };
  if (!q.code) return { status: 400, message: 'The provider sent neither a code nor an error.', retry };
  return undefined;
}

export interface ConnectRoutesOptions {
  config: Config;
  connect: ConnectService;
  /** The Connect states the callback consumes. */
  storage: Storage;
  now: () => number;
}

export async function connectRoutes(app: FastifyInstance, opts: ConnectRoutesOptions): Promise<void> {
  securePages(app);
  const { config, connect, storage, now } = opts;
  await useBrowserSession(app);

  app.get('/connect/callback', async (request: FastifyRequest, reply) => {
    const q = callbackQuery.safeParse(request.query);
    if (!q.success) return fail(reply, 400, `This is not a valid connect callback (${firstIssue(q.error)}).`);
    // Signing in first keeps the state usable: it is consumed only by its own account.
    const account = await requireAccount(request, reply);
    if (!account) return reply;
    const state = await storage.connect.consumeState(q.data.state, now());
    if (!state) return fail(reply, 400, 'This connect link has expired or was already used. Start again.');
    const refused = await refusal(state, account, q.data);
    if (refused) return fail(reply, refused.status, refused.message, refused.retry);
    try {
      const manifest = await connect.finish(q.data.state, state, callbackUrl(config.baseUrl, request.url));
      request.log.info(
        { officeId: state.officeId, integration: state.integrationId, accountId: account.id },
        'integration connected',
      );
      return reply
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(
          renderConnectedPage({
            integration: manifest.name,
            officeId: state.officeId,
            instance: state.instanceLabel,
          }),
        );
    } catch (err) {
      return failFrom(reply, err);
    }
  });

  app.get(
    '/connect/:integrationId',
    async (request: FastifyRequest<{ Params: { integrationId: string } }>, reply) => {
      const q = startQuery.safeParse(request.query);
      if (!q.success) return fail(reply, 400, `The connect link is incomplete (${firstIssue(q.error)}).`);
      const account = await requireAccount(request, reply);
      if (!account) return reply;
      try {
        connect.oauthIntegration(request.params.integrationId);
        if (!(await canActOnOffice(account, q.data.office)))
          return fail(reply, 403, `You may not act on office ${q.data.office}.`);
        const url = await connect.start(
          request.params.integrationId,
          q.data.office,
          account.id,
          q.data.instance,
        );
        return reply.header('cache-control', 'no-store').redirect(url.href, 303);
      } catch (err) {
        return failFrom(reply, err);
      }
    },
  );
}
