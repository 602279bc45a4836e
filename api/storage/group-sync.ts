// Group commit: a write resolves only after a sync that started after it has finished, and every
// write that lands while one sync runs shares the next one, so one fsync acknowledges many requests.
import { DatabaseUnavailableError } from './sql-driver.ts';

/** Makes everything written so far durable (an fdatasync, run off the event loop). */
export type SyncFn = () => Promise<void>;

export class GroupSync {
  private readonly sync: SyncFn;
  private running: Promise<void> | undefined;
  /** The batch waiting for the next sync: every write made while the current one runs. */
  private waiting: PromiseWithResolvers<void> | undefined;
  /** Once a sync fails, what the file holds is unknown; no later write is acknowledged. */
  private failure: DatabaseUnavailableError | undefined;

  constructor(sync: SyncFn) {
    this.sync = sync;
  }

  /** Call right after a commit; resolves once that commit is on disk, rejects if it may not be. */
  afterCommit(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.waiting) {
      this.waiting = Promise.withResolvers<void>();
      // Awaiting it is the caller's business; an unobserved rejection must not crash the process.
      this.waiting.promise.catch(() => {});
    }
    const { promise } = this.waiting;
    if (!this.running) this.start();
    return promise;
  }

  /** Throws the failure of an earlier sync: after one, the database is unavailable until a restart. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /** Whether some commit is not known to be on disk yet (a sync is running or waiting to run). */
  get pending(): boolean {
    return this.running !== undefined || this.waiting !== undefined;
  }

  /** Resolves once no sync is running or waiting to run (the last batch settled, either way). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private start(): void {
    const batch = this.waiting;
    this.waiting = undefined;
    if (!batch) return;
    this.running = this.runOnce(batch).finally(() => {
      this.running = undefined;
      if (this.waiting) this.start();
    });
  }

  private async runOnce(batch: PromiseWithResolvers<void>): Promise<void> {
    try {
      await this.sync();
      batch.resolve();
    } catch (err) {
      this.failure ??= new DatabaseUnavailableError(err);
      batch.reject(this.failure);
      this.waiting?.reject(this.failure);
      this.waiting = undefined;
    }
  }
}
