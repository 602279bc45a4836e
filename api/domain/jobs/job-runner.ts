// Executes durable jobs: runs their handler, retries with backoff. An idle runner sleeps until the
// earliest pending job is due, is woken when a job is enqueued (in this process, or on PostgreSQL by
// any replica), and otherwise looks again only every pollMs, for news it may have missed.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { JobRecord, JobsRepo } from './jobs-repo.ts';

export interface JobHandler<I = unknown> {
  description: string;
  input: z.ZodType<I>;
  maxAttempts: number;
  /** The wait before the next attempt; retryDelayMs (capped at 60 s) unless the type needs longer. */
  retryDelayMs?: (attempt: number) => number;
  run(input: I, ctx: { job: JobRecord; signal: AbortSignal }): Promise<unknown>;
}

export type JobHandlers = Record<string, JobHandler<never>>;

export interface JobRunnerOptions {
  jobs: JobsRepo;
  handlers: JobHandlers;
  log: FastifyBaseLogger;
  /** The longest an idle runner sleeps without being woken. */
  pollMs: number;
  leaseMs?: number;
  now?: () => number;
  onOutcome?: (type: string, outcome: 'completed' | 'retrying' | 'failed') => void;
}

const MIN_IDLE_MS = 25;

/** Exponential backoff with equal jitter: half the ceiling fixed, half random; 1 s doubling to a cap (60 s). */
export function retryDelayMs(attempt: number, random: () => number = Math.random, capMs = 60_000): number {
  const ceiling = Math.min(capMs, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export class JobRunner {
  readonly workerId = `worker_${randomUUID().slice(0, 8)}`;
  private readonly opts: Required<Omit<JobRunnerOptions, 'onOutcome'>> & Pick<JobRunnerOptions, 'onOutcome'>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private stopped = false;
  /** When the pending timer fires (local clock), so a later wake-up never postpones an earlier one. */
  private wakesAt = Number.POSITIVE_INFINITY;
  /** A wake-up came during a pass, which may already have looked: look again right after it. */
  private woken = false;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(opts: JobRunnerOptions) {
    this.opts = { leaseMs: 60_000, now: Date.now, ...opts };
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe ??= this.opts.jobs.subscribe({
      runnable: (runAt) => this.wakeAt(runAt),
      missed: () => this.poke(),
    });
    this.schedule(0);
  }

  /** Wakes the runner now (after a job is enqueued) instead of waiting for its next look. */
  poke(): void {
    this.wakeAt(0);
  }

  /** A job becomes runnable at `runAt`: be awake then, unless already due to wake earlier. */
  wakeAt(runAt: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.woken = true;
      return;
    }
    const ms = Math.max(0, runAt - this.opts.now());
    if (Date.now() + ms < this.wakesAt) this.schedule(ms);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running;
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** `due`: a job is known to be runnable then, so the pass claims at once instead of asking first. */
  private schedule(ms: number, due = true): void {
    clearTimeout(this.timer);
    this.wakesAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.wakesAt = Number.POSITIVE_INFINITY;
      this.running = this.pass(due).finally(() => {
        this.running = undefined;
      });
    }, ms);
    this.timer.unref();
  }

  private async pass(due: boolean): Promise<void> {
    this.woken = false;
    // An idle look asks when the next job is due first: one statement when there is nothing to do.
    let wait = due ? 0 : await this.untilDue();
    if (wait === 0) {
      await this.drain();
      wait = await this.untilDue();
      // Due but not claimable: another runner holds it for a moment. No busy loop.
      if (wait === 0) wait = MIN_IDLE_MS;
    }
    if (this.stopped) return;
    if (this.woken) this.schedule(0);
    else this.schedule(wait, wait < this.opts.pollMs);
  }

  /** Milliseconds until the earliest pending job is due (0: now), at most pollMs. */
  private async untilDue(): Promise<number> {
    const { jobs, now, pollMs } = this.opts;
    try {
      const next = await jobs.nextRunAt();
      return next === undefined ? pollMs : Math.min(pollMs, Math.max(0, next - now()));
    } catch {
      return pollMs;
    }
  }

  /** Runs jobs one after another until none is runnable. */
  private async drain(): Promise<void> {
    while (!this.stopped) {
      let job: JobRecord | undefined;
      try {
        job = await this.opts.jobs.claim(this.workerId, this.opts.now(), this.opts.leaseMs);
      } catch (err) {
        this.opts.log.warn({ err }, 'job runner could not claim a job');
        return;
      }
      if (!job) return;
      await this.execute(job);
    }
  }

  private async execute(job: JobRecord): Promise<void> {
    const { jobs, handlers, log, now, leaseMs } = this.opts;
    const handler = handlers[job.type];
    const renew = setInterval(() => {
      jobs.renewLease(job.id, this.workerId, now() + leaseMs).catch(() => {});
    }, leaseMs / 3);
    try {
      if (!handler) throw new Error(`no handler for job type ${job.type}`);
      const input = handler.input.parse(job.input);
      const result = await handler.run(input as never, { job, signal: this.abort.signal });
      await jobs.complete(job.id, this.workerId, result ?? null, now());
      this.opts.onOutcome?.(job.type, 'completed');
      log.info({ jobId: job.id, type: job.type, attempts: job.attempts }, 'job completed');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const final = !handler || job.attempts >= job.maxAttempts;
      const delay = handler?.retryDelayMs?.(job.attempts) ?? retryDelayMs(job.attempts);
      const retryAt = final ? null : now() + delay;
      await jobs.fail(job.id, this.workerId, message, retryAt, now()).catch(() => {});
      this.opts.onOutcome?.(job.type, final ? 'failed' : 'retrying');
      log.warn(
        { jobId: job.id, type: job.type, attempts: job.attempts, retryAt, err: message },
        'job attempt failed',
      );
    } finally {
      clearInterval(renew);
    }
  }
}
