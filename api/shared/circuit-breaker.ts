// A circuit breaker for an optional dependency on a request path: after a run of failures it refuses
// calls at once for a cool-down, then lets one probe through to learn whether the dependency is back.

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failures: number;
  /** How long an open circuit refuses calls before one probe is let through. */
  coolDownMs: number;
  now: () => number;
  /** Told when the circuit opens (true) and when a successful call closes it again (false). */
  onOpenChange?: (open: boolean) => void;
}

/** Thrown instead of calling a dependency whose circuit is open. */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
}

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreaker {
  /** Runs `call` unless the circuit is open (then rejects with CircuitOpenError without calling). */
  run<T>(call: () => Promise<T>): Promise<T>;
  state(): CircuitState;
}

// Three failed calls in a row (each up to its timeout), then a minute of answering without the dependency.
const DEFAULTS: Omit<CircuitBreakerOptions, 'onOpenChange'> = {
  failures: 3,
  coolDownMs: 60_000,
  now: Date.now,
};

export function circuitBreaker(options: Partial<CircuitBreakerOptions> = {}): CircuitBreaker {
  const opts = { ...DEFAULTS, ...options };
  let failed = 0;
  let openedAt: number | undefined;
  let probing = false;

  const setOpenedAt = (at: number | undefined) => {
    const changed = (at === undefined) !== (openedAt === undefined);
    openedAt = at;
    if (changed) opts.onOpenChange?.(at !== undefined);
  };

  const state = (): CircuitState => {
    if (openedAt === undefined) return 'closed';
    return opts.now() - openedAt >= opts.coolDownMs ? 'half-open' : 'open';
  };

  return {
    state,
    async run(call) {
      const now = state();
      // While the one probe is out, everyone else is refused as if the circuit were still open.
      if (now === 'open' || (now === 'half-open' && probing)) {
        throw new CircuitOpenError('the dependency failed repeatedly; not called during its cool-down');
      }
      const probe = now === 'half-open';
      probing = probe;
      try {
        const result = await call();
        failed = 0;
        setOpenedAt(undefined);
        return result;
      } catch (err) {
        failed += 1;
        if (probe || failed >= opts.failures) setOpenedAt(opts.now());
        throw err;
      } finally {
        if (probe) probing = false;
      }
    },
  };
}
