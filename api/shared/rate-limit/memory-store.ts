// In-process counters: the default when a single replica serves the API.
import { alternatingKey, type WindowPair, type WindowPairStore } from './sliding-window.ts';

export class MemoryCounterStore implements WindowPairStore {
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

  hitPair(key: string, windowStart: number, cost: number, windowMs: number): WindowPair {
    const current = this.hit(alternatingKey(key, windowStart, windowMs), windowStart, cost);
    const previousStart = windowStart - windowMs;
    const before = this.counters.get(alternatingKey(key, previousStart, windowMs));
    return { current, previous: before?.windowStart === previousStart ? before.count : 0 };
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
