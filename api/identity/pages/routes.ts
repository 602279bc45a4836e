// The identity pages people use: /signup, /signin, /signout and /account.

import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { PriceList } from '../../domain/pricing/price-list.ts';
import { securePages } from '../../shared/page-security.ts';
import { currentAccount, forgetCurrentAccount, sessionToken } from '../accounts/current-account.ts';
import { clearSessionCookie, setSessionCookie } from '../accounts/session-cookie.ts';
import { useBrowserSession } from '../browser-session.ts';
import type { IdentityServices } from '../identity-services.ts';
import { type AccountSection, accountRoutes } from './account-routes.ts';
import { csrfToken, isGenuineFormPost } from './csrf.ts';
import { fieldErrors, plainForm, signinForm, signupForm, typedValues } from './forms.ts';
import { forgedPost, html } from './page-reply.ts';
import { safeReturnTo } from './return-to.ts';
import { renderSigninPage } from './signin-page.ts';
import { renderSignupPage } from './signup-page.ts';

const hidden = { schema: { hide: true } };

type Query = { Querystring: { return_to?: string } };

/** Sign-up attempts per client address and per email; true when this one is allowed. */
async function withinAttemptBudget(
  identity: IdentityServices,
  request: FastifyRequest,
  email: string,
): Promise<boolean> {
  const limiter = identity.signInLimiter;
  const [byAddress, byEmail] = await Promise.all([
    limiter.consume(`ip:${request.ip}`),
    limiter.consume(`email:${email.toLowerCase()}`),
  ]);
  return byAddress.allowed && byEmail.allowed;
}

/** What a refused sign-in says: how long to wait, and why. */
function tooManyFailures(refusal: { retryAfterSeconds: number; reason: 'pair' | 'address' }): string {
  const seconds = refusal.retryAfterSeconds;
  const wait = `Wait ${seconds} second${seconds === 1 ? '' : 's'} and try again.`;
  return refusal.reason === 'pair'
    ? `Too many wrong passwords for this account from your address. ${wait}`
    : `Too many wrong passwords from your address. ${wait}`;
}

async function startSession(
  identity: IdentityServices,
  request: FastifyRequest,
  reply: FastifyReply,
  accountId: string,
) {
  const { accounts, cookiePolicy } = identity;
  const previous = sessionToken(request);
  if (previous) await accounts.endSession(previous);
  const session = await accounts.startSession(accountId);
  setSessionCookie(reply, cookiePolicy, session.token, session.expiresAt);
  forgetCurrentAccount(request);
}

export interface IdentityPagesOptions {
  config: Config;
  /** The sign-up page shows the plans. */
  prices: PriceList;
  identity: IdentityServices;
  /** The plan section of /account, rendered by the commerce domain (HTML); none without it. */
  planSection?: (accountId: string) => Promise<string>;
  /** The office section of /account and its forms, from the office domain; none without it. */
  officeSection?: AccountSection;
  /** The usage section of /account (credits this period), rendered by the commerce domain. */
  usageSection?: (accountId: string) => Promise<string>;
}

export async function identityPages(app: FastifyInstance, opts: IdentityPagesOptions): Promise<void> {
  securePages(app);
  const { config, prices, identity } = opts;
  await useBrowserSession(app);
  await app.register(formbody, { bodyLimit: 16_384 });
  accountRoutes(app, opts);

  const signupView = (request: FastifyRequest, reply: FastifyReply, returnTo: string) => ({
    baseUrl: config.baseUrl,
    prices,
    environment: config.environment,
    csrf: csrfToken(request, reply),
    returnTo,
  });

  app.get<Query>('/signup', hidden, async (request, reply) => {
    const returnTo = safeReturnTo(request.query.return_to);
    if (await currentAccount(request)) return reply.redirect(returnTo, 303);
    return html(reply, 200, renderSignupPage(signupView(request, reply, returnTo)));
  });

  app.post('/signup', hidden, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnTo(body.return_to);
    if (!isGenuineFormPost(request, body._csrf)) return forgedPost(reply);
    const view = { ...signupView(request, reply, returnTo), values: typedValues(body) };
    const parsed = signupForm.safeParse(body);
    if (!parsed.success)
      return html(reply, 400, renderSignupPage({ ...view, errors: fieldErrors(parsed.error) }));
    if (!(await withinAttemptBudget(identity, request, parsed.data.email))) {
      return html(
        reply,
        429,
        renderSignupPage({ ...view, message: 'Too many attempts. Wait a minute and try again.' }),
      );
    }
    const result = await identity.accounts.signUp(parsed.data);
    if (!result.ok) {
      return html(
        reply,
        409,
        renderSignupPage({
          ...view,
          errors: { email: 'An account with this email already exists. Sign in instead.' },
        }),
      );
    }
    request.log.info({ accountId: result.account.id }, 'account created');
    await startSession(identity, request, reply, result.account.id);
    return reply.redirect(returnTo, 303);
  });

  app.get<Query>('/signin', hidden, async (request, reply) => {
    const returnTo = safeReturnTo(request.query.return_to);
    if (await currentAccount(request)) return reply.redirect(returnTo, 303);
    return html(reply, 200, renderSigninPage({ csrf: csrfToken(request, reply), returnTo }));
  });

  app.post('/signin', hidden, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnTo(body.return_to);
    if (!isGenuineFormPost(request, body._csrf)) return forgedPost(reply);
    const view = { csrf: csrfToken(request, reply), returnTo, email: typedValues(body).email ?? '' };
    const parsed = signinForm.safeParse(body);
    if (!parsed.success)
      return html(reply, 400, renderSigninPage({ ...view, errors: fieldErrors(parsed.error) }));
    const admission = await identity.signinThrottle.admit(request.ip, parsed.data.email);
    if (!admission.allowed) {
      reply.header('retry-after', String(admission.retryAfterSeconds));
      return html(reply, 429, renderSigninPage({ ...view, message: tooManyFailures(admission) }));
    }
    const account = await identity.accounts.verifyCredentials(parsed.data.email, parsed.data.password);
    if (!account)
      return html(reply, 401, renderSigninPage({ ...view, message: 'The email or password is wrong.' }));
    await admission.ticket.succeeded();
    await startSession(identity, request, reply, account.id);
    return reply.redirect(returnTo, 303);
  });

  app.post('/signout', hidden, async (request, reply) => {
    const parsed = plainForm.safeParse(request.body ?? {});
    if (!parsed.success || !isGenuineFormPost(request, parsed.data._csrf)) return forgedPost(reply);
    const token = sessionToken(request);
    if (token) await identity.accounts.endSession(token);
    clearSessionCookie(reply, identity.cookiePolicy);
    forgetCurrentAccount(request);
    return reply.redirect('/signin', 303);
  });
}
