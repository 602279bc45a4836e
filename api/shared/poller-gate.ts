// Which replica runs the cluster-wide pollers. Without a leader election every replica does (one
// replica, or no cluster); with one, only the Lease holder does, and a new term moves them at once.

/** A background timer that can be started and stopped any number of times. */
export interface Poller {
  start(): void;
  stop(): void | Promise<void>;
}

export class PollerGate {
  private leadingNow: boolean;
  private readonly attached = new Set<Poller>();
  private readonly listeners = new Set<(leading: boolean) => void>();
  /** Serialises term changes, so a quick lose-and-win never leaves a poller both stopped and started. */
  private change: Promise<void> = Promise.resolve();

  constructor(leading = true) {
    this.leadingNow = leading;
  }

  get leading(): boolean {
    return this.leadingNow;
  }

  /** Runs `poller` while this replica leads; the returned function detaches it and stops it. */
  attach(poller: Poller): () => Promise<void> {
    this.attached.add(poller);
    if (this.leadingNow) poller.start();
    return async () => {
      if (!this.attached.delete(poller)) return;
      await poller.stop();
    };
  }

  onChange(listener: (leading: boolean) => void): void {
    this.listeners.add(listener);
  }

  /** The election's verdict: starts every attached poller on winning, stops them on losing. */
  set(leading: boolean): Promise<void> {
    this.change = this.change.then(async () => {
      if (leading === this.leadingNow) return;
      this.leadingNow = leading;
      for (const listener of this.listeners) listener(leading);
      for (const poller of this.attached) {
        if (leading) poller.start();
        else await poller.stop();
      }
    });
    return this.change;
  }
}
