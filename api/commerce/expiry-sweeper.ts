// Periodically expires checkout sessions past their six hours and purges idempotency records past their
// retention; reads expire sessions lazily too, so the sweep only keeps stored states honest.
import type { FastifyBaseLogger } from 'fastify';
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
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  return {
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = sweepOnce(o)
          .then((r) => {
            if (r.expired > 0 || r.purged > 0) o.log.info(r, 'checkout sweep');
          })
          .catch((err) => o.log.warn({ err }, 'checkout sweep failed'))
          .finally(() => {
            running = undefined;
          });
      }, o.everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
