// Following a job the server runs: a spinner line on a terminal (nothing when piped), polling at the
// pace the server's Retry-After asks for, and Ctrl-C that stops waiting while the job, durable on the
// server, carries on.
import type { CommandIo } from './spec.ts';
import { EXIT } from './usage-error.ts';

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Ctrl-C while waiting: exit 130 saying what carries on at the server and how to check it. */
export class WaitInterrupted extends Error {
  override readonly name = 'WaitInterrupted';
  readonly exitCode = EXIT.interrupted;
  readonly hint: string;

  constructor(message: string, hint: string) {
    super(message);
    this.hint = hint;
  }
}

export interface Spinner {
  update(text: string): void;
  stop(): void;
}

/** A spinner on the status line when stderr is a terminal; a no-op otherwise. */
export function spinner(io: CommandIo, now: () => number = Date.now): Spinner {
  const status = io.status;
  if (!io.tty || !status) return { update() {}, stop() {} };
  const started = now();
  let text = '';
  let frame = 0;
  const draw = () => {
    frame = (frame + 1) % frames.length;
    status(`${frames[frame]} ${text} (${Math.round((now() - started) / 1000)}s)`);
  };
  const timer = setInterval(draw, 100);
  return {
    update(next) {
      text = next;
      draw();
    },
    stop() {
      clearInterval(timer);
      status('');
    },
  };
}

/** Sleeps, or rejects at once when the signal is aborted. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', stop, { once: true });
  });
}

export interface FollowOptions<T> {
  io: CommandIo;
  /** Reads the job once; `retryAfterSeconds` paces the next read. */
  read: () => Promise<{ value: T; retryAfterSeconds: number | undefined }>;
  settled: (value: T) => boolean;
  /** The progress line for a value: `snap_… running`. */
  describe: (value: T) => string;
  /** What Ctrl-C says carries on, and the command that checks on it. */
  interrupted: { message: string; hint: string };
  intervalMs?: number;
  timeoutMs?: number;
  /** How to wait between reads (tests pass their own). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Polls until `settled`; the server's Retry-After wins over the default interval. */
export async function follow<T>(opts: FollowOptions<T>): Promise<T> {
  const line = spinner(opts.io);
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  try {
    for (;;) {
      const { value, retryAfterSeconds } = await opts.read();
      if (opts.settled(value)) return value;
      line.update(opts.describe(value));
      if (Date.now() > deadline) throw new Error(`${opts.describe(value)} after waiting; still not finished`);
      const waitMs = retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : (opts.intervalMs ?? 1000);
      await (opts.sleep ?? pause)(Math.max(100, waitMs), opts.io.signal);
    }
  } catch (err) {
    if (opts.io.signal?.aborted) throw new WaitInterrupted(opts.interrupted.message, opts.interrupted.hint);
    throw err;
  } finally {
    line.stop();
  }
}
