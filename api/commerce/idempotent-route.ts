// Fastify glue for an idempotent checkout POST, used by the checkout surface: each protocol supplies its own
// errors; protocol errors raised while handling become stored answers, so a replay repeats them too.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FinishedResponse } from '../shared/finished-response.ts';
import type { CheckoutIdempotencyRepo } from './checkout-idempotency-repo.ts';
import { type IdempotencySettings, type IdempotentHandler, runIdempotent } from './idempotent-request.ts';
import { idempotencyKeyOf, sendFinished } from './send-response.ts';

export interface ProtocolErrors {
  /** The protocol's own errors, rendered to bytes; anything else is rethrown (a server failure). */
  render(err: unknown): FinishedResponse | undefined;
  invalidKey(): Error;
  conflict(): Error;
  inFlight(retryAfterSeconds: number): Error;
}

export interface IdempotentRoute {
  request: FastifyRequest;
  reply: FastifyReply;
  repo: CheckoutIdempotencyRepo;
  settings: IdempotencySettings;
  now: number;
  /** Protocol, operation and session: keys are scoped to the endpoint. */
  scope: string;
  /** Everything besides the body that shapes the answer (the negotiated version). */
  variant: unknown;
  /** The handler's one write stores its answer and may claim the key too (see IdempotentRequest). */
  claimInWrite?: boolean;
  errors: ProtocolErrors;
  run: IdempotentHandler;
}

export async function idempotentRoute(o: IdempotentRoute): Promise<FastifyReply> {
  const key = idempotencyKeyOf(o.request);
  if (key === 'invalid') throw o.errors.invalidKey();
  const result = await runIdempotent(
    o.repo,
    key === undefined
      ? undefined
      : {
          scope: o.scope,
          key,
          request: { variant: o.variant, body: o.request.body ?? null },
          claimInWrite: o.claimInWrite ?? false,
        },
    o.settings,
    o.now,
    async (storeWith) => {
      try {
        return await o.run(storeWith);
      } catch (err) {
        const response = o.errors.render(err);
        if (response) return { response, stored: false };
        throw err;
      }
    },
  );
  if (result.kind === 'conflict') throw o.errors.conflict();
  if (result.kind === 'in_flight') throw o.errors.inFlight(result.retryAfterSeconds);
  return sendFinished(o.reply, result.response, result.replayed);
}
