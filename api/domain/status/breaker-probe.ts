// Probe of an optional dependency behind a circuit breaker: degraded, never down, while its circuit is
// open, since requests are still answered without it.
import type { CircuitBreaker } from '../../shared/circuit-breaker.ts';
import type { Probe } from './probes.ts';

export function breakerProbe(
  names: Pick<Probe, 'name' | 'description'>,
  breaker: CircuitBreaker,
  /** What requests get meanwhile, e.g. "memories are stored without vectors". */
  meanwhile: string,
): Probe {
  return {
    ...names,
    async check() {
      const state = breaker.state();
      if (state === 'closed') return { detail: 'answering' };
      return {
        status: 'degraded',
        detail:
          state === 'open'
            ? `failed repeatedly and is not called during its cool-down; ${meanwhile}`
            : `failed repeatedly; the next request tries it again, ${meanwhile} until it answers`,
      };
    },
  };
}
