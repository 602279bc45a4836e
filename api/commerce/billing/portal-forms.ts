// What every form of the plan page shares: its path, and the check that a post is the signed-in
// account's own (the CSRF token and origin, as on the identity pages).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../identity/accounts/account.ts';
import { requireAccount } from '../../identity/accounts/current-account.ts';
import { isGenuineFormPost } from '../../identity/pages/csrf.ts';
import { forgedPost } from '../../identity/pages/page-reply.ts';

export const PLAN_PATH = '/account/plan';

/** The signed-in account behind a genuine form post, or undefined once the reply is sent. */
export async function formPoster(request: FastifyRequest, reply: FastifyReply): Promise<Account | undefined> {
  const account = await requireAccount(request, reply);
  if (!account) return undefined;
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (!isGenuineFormPost(request, body._csrf)) {
    await forgedPost(reply);
    return undefined;
  }
  return account;
}
