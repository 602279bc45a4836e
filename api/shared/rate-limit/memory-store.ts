// In-process counters: the default when a single replica serves the API.
import type { CounterStore } from './rate-limiter.ts';

export class MemoryCounterStore implements CounterStore {
  readonly name = 'memory';
  private readonly counters = new Map<string, { windowStart: number; count: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs = 60_000) {
    // Old windows are dropped periodically so idle clients do not accumulate.
    this.sweeper = setInterval(() => this.sweep(Date.now()), sweepEveryMs);
    this.sweeper.unref();
  }

  hit(key: string, windowStart: number, cost: number): number {
    const entry = this.counters.get(key);
    if (!entry || entry.windowStart !== windowStart) {
      this.counters.set(key, { windowStart, count: cost });
      return cost;
    }
    entry.count += cost;
    return entry.count;
  }

  sweep(now: number, maxWindowMs = 3_600_000): void {
    for (const [key, entry] of this.counters) {
      if (entry.windowStart + maxWindowMs < now) this.counters.delete(key);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
