// Framework-free idempotency for checkout POSTs: one claim per key and endpoint; the first request runs,
// a repeat with the same request replays its bytes, a different request conflicts, a racing one waits.
import { requestHash } from '../shared/canonical-json.ts';
import type { FinishedResponse } from '../shared/finished-response.ts';
import type { CheckoutIdempotencyRepo, ClaimOptions, IdempotencyClaim } from './checkout-idempotency-repo.ts';
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
  /**
   * The handler's only effect is the one write that stores its response (a create): the key is then
   * claimed inside that write, one statement fewer and one commit fewer than claiming it first.
   */
  claimInWrite?: boolean;
}

export type IdempotentResult =
  | { kind: 'response'; response: FinishedResponse; replayed: boolean }
  | { kind: 'conflict' }
  | { kind: 'in_flight'; retryAfterSeconds: number };

/**
 * The handler answers; `stored` says it already wrote the response with its own change, atomically.
 * `keyTaken` says a write asked to claim the key (`storeWith.claim`) found it held and wrote nothing.
 */
export type IdempotentHandler = (
  storeWith: StoreWith | undefined,
) => Promise<{ response: FinishedResponse; stored: boolean; keyTaken?: boolean }>;

/** The answer for a key someone else holds; undefined when this request holds the claim now. */
function notClaimed(claim: IdempotencyClaim): IdempotentResult | undefined {
  if (claim.outcome === 'conflict') return { kind: 'conflict' };
  if (claim.outcome === 'in_flight') return { kind: 'in_flight', retryAfterSeconds: claim.retryAfterSeconds };
  if (claim.outcome === 'replay') return { kind: 'response', response: claim.response, replayed: true };
  return undefined;
}

export async function runIdempotent(
  repo: CheckoutIdempotencyRepo,
  req: IdempotentRequest | undefined,
  settings: IdempotencySettings,
  now: number,
  handler: IdempotentHandler,
): Promise<IdempotentResult> {
  if (!req) return { kind: 'response', response: (await handler(undefined)).response, replayed: false };
  const claim: ClaimOptions = {
    scope: req.scope,
    key: req.key,
    fingerprint: requestHash(req.request),
    now,
    lockMs: settings.lockMs,
    ttlMs: settings.ttlMs,
  };
  if (req.claimInWrite) {
    const answered = await claimingInWrite(repo, claim, handler);
    if (answered) return answered;
  }
  const held = notClaimed(await repo.claim(claim));
  if (held) return held;
  try {
    const { response, stored } = await handler({ scope: claim.scope, key: claim.key });
    // A server failure is not worth repeating: the key is freed so a retry runs again.
    if (response.statusCode >= 500) await repo.abandon(claim.scope, claim.key);
    else if (!stored) await repo.finish(claim.scope, claim.key, response);
    return { kind: 'response', response, replayed: false };
  } catch (err) {
    await repo.abandon(claim.scope, claim.key).catch(() => {});
    throw err;
  }
}

/** The handler runs first and claims in its write; undefined when the key was held (claim-first decides). */
async function claimingInWrite(
  repo: CheckoutIdempotencyRepo,
  claim: ClaimOptions,
  handler: IdempotentHandler,
): Promise<IdempotentResult | undefined> {
  const { response, stored, keyTaken } = await handler({ scope: claim.scope, key: claim.key, claim });
  if (keyTaken) return undefined;
  const answered: IdempotentResult = { kind: 'response', response, replayed: false };
  if (stored || response.statusCode >= 500) return answered;
  // An answer the handler wrote nowhere (an error, nothing claimed) is claimed now and kept for replays.
  const held = notClaimed(await repo.claim(claim));
  if (held) return held;
  await repo.finish(claim.scope, claim.key, response);
  return answered;
}
