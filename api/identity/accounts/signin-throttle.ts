// Sign-in throttling that an attacker cannot turn against the owner: wrong passwords are counted per
// (address, account) pair, with progressive delays, and per address across accounts.
import { createHash } from 'node:crypto';
import type { CounterStore } from '../../shared/rate-limit/rate-limiter.ts';

/** How long a pair's wrong passwords are remembered (a fixed window, as every counter store keeps). */
export const PAIR_WINDOW_MS = 3_600_000;
/** The first delay once a pair has used its free failures; each further failure doubles it. */
export const BASE_DELAY_MS = 1_000;
const ADDRESS_WINDOW_MS = 60_000;

export interface SigninThrottleOptions {
  store: CounterStore;
  /** Wrong passwords one address may try for one account before each further try must wait. */
  freeFailures: number;
  /** The longest wait between two tries of a pair. */
  maxDelayMs: number;
  /** Wrong passwords per minute from one address, whatever the account (credential stuffing). */
  addressFailuresPerMinute: number;
  /**
   * The store is unreachable: the attempt is let through, as every Colony limiter fails open, so an
   * outage of the store does not lock everyone out of sign-in.
   */
  onStoreError?: (err: unknown) => void;
  now?: () => number;
}

/** One sign-in attempt let through: report how it went. */
export interface SigninTicket {
  /** A correct password: the attempt is not counted as a failure. */
  succeeded(): Promise<void>;
}

export type SigninAdmission =
  | { allowed: true; ticket: SigninTicket }
  | { allowed: false; retryAfterSeconds: number; reason: 'pair' | 'address' };

/**
 * The wait owed before the try that follows `failures` wrong passwords, or 0 while it is free:
 * BASE_DELAY_MS, doubled for each failure past the free ones, capped at `maxDelayMs`.
 */
export function delayAfter(failures: number, freeFailures: number, maxDelayMs: number): number {
  if (failures < freeFailures) return 0;
  const doublings = Math.min(failures - freeFailures, 40);
  return Math.min(BASE_DELAY_MS * 2 ** doublings, maxDelayMs);
}

/** A bounded, opaque counter key for the pair (the store never sees the email). */
function pairKey(address: string, email: string): string {
  const digest = createHash('sha256').update(`${address}\n${email.trim().toLowerCase()}`).digest('base64url');
  return digest.slice(0, 32);
}

const windowOf = (now: number, windowMs: number) => Math.floor(now / windowMs) * windowMs;

/**
 * Each attempt first reserves its place atomically (so a burst of parallel tries is counted as many
 * tries, not as one), is refused and refunded when it comes too early, and is refunded again when the
 * password was right: only failures stay counted. The time of each counted try is kept under its
 * ordinal (as an offset in the pair's window), so the next try knows when it may come.
 */
export class SigninThrottle {
  private readonly opts: SigninThrottleOptions;
  private readonly now: () => number;

  constructor(opts: SigninThrottleOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  async admit(address: string, email: string): Promise<SigninAdmission> {
    try {
      return await this.admitOrThrow(address, email);
    } catch (err) {
      this.opts.onStoreError?.(err);
      return { allowed: true, ticket: { succeeded: async () => {} } };
    }
  }

  private async admitOrThrow(address: string, email: string): Promise<SigninAdmission> {
    const { store } = this.opts;
    const now = this.now();
    const pair = pairKey(address, email);
    const pairWindow = windowOf(now, PAIR_WINDOW_MS);
    const addressWindow = windowOf(now, ADDRESS_WINDOW_MS);
    const hitPair = (cost: number) => store.hit(`signin-pair:${pair}`, pairWindow, cost, PAIR_WINDOW_MS);
    const hitAddress = (cost: number) =>
      store.hit(`signin-address:${address}`, addressWindow, cost, ADDRESS_WINDOW_MS);
    const triedAt = (ordinal: number, cost: number) =>
      store.hit(`signin-pair-at:${pair}:${ordinal}`, pairWindow, cost, PAIR_WINDOW_MS);
    const refund = () => Promise.all([hitPair(-1), hitAddress(-1)]);

    const [ordinal, byAddress] = await Promise.all([hitPair(1), hitAddress(1)]);
    if (byAddress > this.opts.addressFailuresPerMinute) {
      await refund();
      const retryAfterSeconds = Math.max(1, Math.ceil((addressWindow + ADDRESS_WINDOW_MS - now) / 1000));
      return { allowed: false, retryAfterSeconds, reason: 'address' };
    }
    const wait = await this.waitOwed(ordinal, now, pairWindow, triedAt);
    if (wait > 0) {
      await refund();
      return { allowed: false, retryAfterSeconds: Math.ceil(wait / 1000), reason: 'pair' };
    }
    // Offsets are stored plus one, so a stored 0 always means "not written yet".
    const offset = now - pairWindow + 1;
    await triedAt(ordinal, offset);
    const succeeded = async () => {
      await Promise.all([refund(), triedAt(ordinal, -offset)]).catch((err) => this.opts.onStoreError?.(err));
    };
    return { allowed: true, ticket: { succeeded } };
  }

  /** How long the try numbered `ordinal` must still wait after the previous counted try. */
  private async waitOwed(
    ordinal: number,
    now: number,
    pairWindow: number,
    triedAt: (ordinal: number, cost: number) => number | Promise<number>,
  ): Promise<number> {
    const { freeFailures, maxDelayMs } = this.opts;
    const delay = delayAfter(ordinal - 1, freeFailures, maxDelayMs);
    if (delay === 0) return 0;
    const previous = await triedAt(ordinal - 1, 0);
    // Not written yet: that try is still in flight, so this one is a parallel burst.
    if (previous <= 0) return delay;
    const since = now - (pairWindow + previous - 1);
    return Math.min(delay, Math.max(0, delay - since));
  }
}
