// Periodically expires checkout sessions past their six hours and purges idempotency records past their
// retention; reads expire sessions lazily too, so the sweep only keeps stored states honest.
import type { FastifyBaseLogger } from 'fastify';
import { intervalPoller } from '../shared/interval-poller.ts';
import type { Poller } from '../shared/poller-gate.ts';
import type { CheckoutIdempotencyRepo } from './checkout-idempotency-repo.ts';
import type { CommerceServices } from './commerce-services.ts';

export interface SweeperOptions {
  commerce: CommerceServices;
  idempotency: CheckoutIdempotencyRepo;
  everyMs: number;
  now: () => number;
  log: FastifyBaseLogger;
}

export async function sweepOnce(
  o: Omit<SweeperOptions, 'everyMs' | 'log'>,
): Promise<{ expired: number; purged: number }> {
  const expired = await o.commerce.checkout.expireDue();
  const purged = await o.idempotency.purgeExpired(o.now());
  return { expired, purged };
}

/** The sweep as a poller: a pass every `everyMs` while started, never two passes at once. */
export function expirySweeper(o: SweeperOptions): Poller {
  return intervalPoller({
    everyMs: o.everyMs,
    pass: () => sweepOnce(o),
    name: 'checkout sweep',
    log: o.log,
  });
}
