// Executes durable jobs: polls storage for runnable jobs, runs their handler, retries with backoff.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { JobRecord, JobsRepo } from './jobs-repo.ts';

export interface JobHandler<I = unknown> {
  description: string;
  input: z.ZodType<I>;
  maxAttempts: number;
  run(input: I, ctx: { job: JobRecord; signal: AbortSignal }): Promise<unknown>;
}

export type JobHandlers = Record<string, JobHandler<never>>;

export interface JobRunnerOptions {
  jobs: JobsRepo;
  handlers: JobHandlers;
  log: FastifyBaseLogger;
  pollMs: number;
  leaseMs?: number;
  now?: () => number;
  onOutcome?: (type: string, outcome: 'completed' | 'retrying' | 'failed') => void;
}

/** Exponential backoff with equal jitter: half the ceiling fixed, half random; 1 s doubling to a 60 s cap. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export class JobRunner {
  readonly workerId = `worker_${randomUUID().slice(0, 8)}`;
  private readonly opts: Required<Omit<JobRunnerOptions, 'onOutcome'>> & Pick<JobRunnerOptions, 'onOutcome'>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private stopped = false;

  constructor(opts: JobRunnerOptions) {
    this.opts = { leaseMs: 60_000, now: Date.now, ...opts };
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Wakes the runner now (after a job is enqueued) instead of waiting for the next poll. */
  poke(): void {
    if (!this.stopped && !this.running) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.drain().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.opts.pollMs);
      });
    }, ms);
    this.timer.unref();
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
      const retryAt = final ? null : now() + retryDelayMs(job.attempts);
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
