// subscriptionOf(app, accountId): the account's current subscription, for other surfaces (/api/v1/me).
import type { FastifyInstance } from 'fastify';
import type { SubscriptionRecord } from './subscriptions-repo.ts';

export type { SubscriptionRecord };

/** The subscription recorded when the account's owner last finished a checkout, or undefined. */
export function subscriptionOf(
  app: FastifyInstance,
  accountId: string,
): Promise<SubscriptionRecord | undefined> {
  return app.colony.storage.subscriptions.ofAccount(accountId);
}
