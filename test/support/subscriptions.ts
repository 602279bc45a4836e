// subscriptionOf(app, accountId): the subscription a finished checkout recorded, read back by the billing tests.
import type { FastifyInstance } from 'fastify';
import type { SubscriptionRecord } from '../../api/commerce/subscriptions-repo.ts';

export type { SubscriptionRecord };

/** The subscription recorded when the account's owner last finished a checkout, or undefined. */
export function subscriptionOf(
  app: FastifyInstance,
  accountId: string,
): Promise<SubscriptionRecord | undefined> {
  return app.colony.storage.subscriptions.ofAccount(accountId);
}
