// A worker of one controller: takes keys off its work queue, reconciles each with a logger of its
// own, and turns the outcome into the queue's next step (forget, re-check later, retry with backoff).
import { randomUUID } from 'node:crypto';
import type { RecordEvent } from './events.ts';
import type { Logger } from './logger.ts';
import { type Reconciler, requestOf, TerminalError } from './reconcile.ts';

/** The work-queue calls a worker makes (WorkQueue has them all). */
export interface ReconcileQueue {
  get(): Promise<string | undefined>;
  done(key: string): void;
  forget(key: string): void;
  addAfter(key: string, ms: number): void;
  addRateLimited(key: string): number;
}

export interface ReconcileLoopOptions {
  /** What the requests name (`Agent`, `Integration`), for the logs. */
  kind: string;
  queue: ReconcileQueue;
  reconcile: Reconciler;
  log: Logger;
  /** Reports a TerminalError on the object it names (failures go to the reconcile's logger). */
  recorder?: (log: Logger) => RecordEvent;
  /** Called after every reconcile with its duration and whether it succeeded. */
  observe?: (seconds: number, ok: boolean) => void;
  /** The reconcile id (8 hex characters unless a test fixes it). */
  newId?: () => string;
}

const shortId = () => randomUUID().slice(0, 8);

/** Reconciles one key already taken from the queue, and settles it there. */
export async function reconcileOne(opts: ReconcileLoopOptions, key: string): Promise<void> {
  const { queue } = opts;
  const req = requestOf(key);
  const log = opts.log.child({ reconcileID: (opts.newId ?? shortId)(), kind: opts.kind, ...req });
  const started = performance.now();
  let ok = false;
  try {
    const result = await opts.reconcile(req, log);
    ok = true;
    queue.forget(key);
    if (result?.requeueAfter !== undefined) queue.addAfter(key, result.requeueAfter);
  } catch (err) {
    if (err instanceof TerminalError) {
      queue.forget(key);
      log.error({ reason: err.reason, err: err.message }, 'reconcile failed; not retried');
      if (err.object) opts.recorder?.(log)(err.object, 'Warning', err.reason, err.message);
    } else {
      log.warn({ err: (err as Error).message }, 'reconcile failed; retrying with backoff');
      queue.addRateLimited(key);
    }
  } finally {
    queue.done(key);
    opts.observe?.((performance.now() - started) / 1000, ok);
  }
}

/** One worker: reconciles keys until the queue shuts down. */
export async function runWorker(opts: ReconcileLoopOptions): Promise<void> {
  for (;;) {
    const key = await opts.queue.get();
    if (key === undefined) return;
    await reconcileOne(opts, key);
  }
}
