// Periodically expires checkout sessions past their six hours and purges idempotency records past their
// retention; reads expire sessions lazily too, so the sweep only keeps stored states honest.
import type { FastifyBaseLogger } from 'fastify';
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

export function startExpirySweeper(o: SweeperOptions): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepOnce(o)
      .then((r) => {
        if (r.expired > 0 || r.purged > 0) o.log.info(r, 'checkout sweep');
      })
      .catch((err) => o.log.warn({ err }, 'checkout sweep failed'))
      .finally(() => {
        running = false;
      });
  }, o.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
