// Probe of the shared rate-limit store: degraded, never down, while it fails, since the limiter fails open.
import type { GuardedCounterStore } from '../../shared/rate-limit/guarded-store.ts';
import type { Probe } from './probes.ts';

const descriptions: Record<string, string> = {
  redis: 'Redis (rate-limit counters shared by replicas)',
  postgres: 'PostgreSQL (rate-limit counters shared by replicas)',
};

export function sharedStoreProbe(store: GuardedCounterStore): Probe {
  return {
    name: 'rate-limit-store',
    description: descriptions[store.name] ?? `${store.name} (rate-limit counters)`,
    async check() {
      const health = await store.ping();
      if (health.up) return { detail: `${store.name} answering` };
      return {
        status: 'degraded',
        detail:
          `${store.name} failing since ${new Date(health.since).toISOString()} (${health.error ?? 'no answer'}); ` +
          'requests are let through without rate limits until it answers again',
      };
    },
  };
}
