// Framework-free idempotency for checkout POSTs: one claim per key and endpoint; the first request runs,
// a repeat with the same request replays its bytes, a different request conflicts, a racing one waits.
import { requestHash } from '../shared/canonical-json.ts';
import type { FinishedResponse } from '../shared/finished-response.ts';
import type { CheckoutIdempotencyRepo } from './checkout-idempotency-repo.ts';
import type { StoreWith } from './checkout-service.ts';

export const IDEMPOTENCY_KEY_MAX = 255;

export interface IdempotencySettings {
  /** How long a finished key is kept; never below 24 hours. */
  ttlMs: number;
  /** How long a claim may run before a retry may take it over. */
  lockMs: number;
}

export interface IdempotentRequest {
  /** Protocol, method and route: keys are scoped to the endpoint, as ACP asks. */
  scope: string;
  key: string;
  /** What makes two requests "the same": the body plus anything else that shapes the answer. */
  request: unknown;
}

export type IdempotentResult =
  | { kind: 'response'; response: FinishedResponse; replayed: boolean }
  | { kind: 'conflict' }
  | { kind: 'in_flight'; retryAfterSeconds: number };

/** The handler answers; `stored` says it already wrote the response with its own change, atomically. */
export type IdempotentHandler = (
  storeWith: StoreWith | undefined,
) => Promise<{ response: FinishedResponse; stored: boolean }>;

export async function runIdempotent(
  repo: CheckoutIdempotencyRepo,
  req: IdempotentRequest | undefined,
  settings: IdempotencySettings,
  now: number,
  handler: IdempotentHandler,
): Promise<IdempotentResult> {
  if (!req) return { kind: 'response', response: (await handler(undefined)).response, replayed: false };
  const claim = await repo.claim({
    scope: req.scope,
    key: req.key,
    fingerprint: requestHash(req.request),
    now,
    lockMs: settings.lockMs,
    ttlMs: settings.ttlMs,
  });
  if (claim.outcome === 'conflict') return { kind: 'conflict' };
  if (claim.outcome === 'in_flight') return { kind: 'in_flight', retryAfterSeconds: claim.retryAfterSeconds };
  if (claim.outcome === 'replay') return { kind: 'response', response: claim.response, replayed: true };
  try {
    const { response, stored } = await handler({ scope: req.scope, key: req.key });
    // A server failure is not worth repeating: the key is freed so a retry runs again.
    if (response.statusCode >= 500) await repo.abandon(req.scope, req.key);
    else if (!stored) await repo.finish(req.scope, req.key, response);
    return { kind: 'response', response, replayed: false };
  } catch (err) {
    await repo.abandon(req.scope, req.key).catch(() => {});
    throw err;
  }
}
