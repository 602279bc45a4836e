// Batches concurrent writes of one kind into one statement: under load, a round trip, a statement
// parse and a commit are shared by many requests; alone, a write goes out at once as a batch of one.

/** Runs one batch; answers one result per item, in the items' order. */
export type BatchRunner<I, O> = (items: readonly I[]) => Promise<readonly O[]>;

export interface WriteBatcherOptions<I> {
  /** Batches running at once; more items wait and leave together when one finishes. */
  maxInFlight: number;
  /** Items in one batch at most (the statement's parameters grow with it). */
  maxBatch: number;
  /** Items that must not share a batch (e.g. one idempotency key): the later one waits for the next. */
  keyOf?: (item: I) => string;
}

interface Pending<I, O> {
  item: I;
  done: PromiseWithResolvers<O>;
}

/**
 * Writes go out as soon as fewer than `maxInFlight` batches run; otherwise they queue, and the queue
 * leaves as one batch when a slot frees. A batch that fails is retried item by item, so one bad item
 * fails alone and the others still get their own answer. Each item resolves only when the statement
 * that wrote it has committed, exactly as if it had run alone.
 */
export class WriteBatcher<I, O> {
  private readonly run: BatchRunner<I, O>;
  private readonly opts: WriteBatcherOptions<I>;
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;

  constructor(run: BatchRunner<I, O>, opts: WriteBatcherOptions<I>) {
    this.run = run;
    this.opts = opts;
  }

  submit(item: I): Promise<O> {
    const done = Promise.withResolvers<O>();
    this.queue.push({ item, done });
    this.pump();
    return done.promise;
  }

  private pump(): void {
    while (this.inFlight < this.opts.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight += 1;
      void this.execute(batch).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  /** The next batch, oldest first, skipping (for now) items whose key the batch already holds. */
  private take(): Pending<I, O>[] {
    const { keyOf, maxBatch } = this.opts;
    if (!keyOf) return this.queue.splice(0, maxBatch);
    const batch: Pending<I, O>[] = [];
    const rest: Pending<I, O>[] = [];
    const keys = new Set<string>();
    for (const p of this.queue) {
      const key = keyOf(p.item);
      if (batch.length < maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(p);
      } else rest.push(p);
    }
    this.queue = rest;
    return batch;
  }

  private async execute(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((p) => p.item));
      if (results.length !== batch.length) throw new Error('a batch answered the wrong number of results');
      for (const [i, p] of batch.entries()) p.done.resolve(results[i] as O);
    } catch (err) {
      if (batch.length === 1) {
        batch[0]?.done.reject(err);
        return;
      }
      // Nothing of a failed statement was written: each item runs again alone, for its own answer.
      await Promise.all(batch.map((p) => this.execute([p])));
    }
  }
}
