// Where the API's log lines go: gathered in batches, written asynchronously to stdout, drained before exit.
import pino from 'pino';

/** What a batch is handed to: pino's asynchronous writer (SonicBoom), or a test's stand-in. */
export interface LineWriter {
  write(data: string): boolean;
  flushSync(): void;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

/** How long a line may wait for others before its batch is written. */
const BATCH_DELAY_MS = 50;
/**
 * A batch this large is written at once: about sixty request lines, one write of pino's writer (its
 * write size). 64 KiB batches made fewer writes but cost more process CPU per request at 32–64
 * connections (paired runs on an idle machine: +29 to +32 µs over warn against +13 to +21 at 16 KiB;
 * lines held longer outliving young-generation collections is a likely cause, not a measured one).
 */
const BATCH_CHARS = 16 * 1024;
/**
 * Each asynchronous write is a round trip through libuv's thread pool: 60–80 µs of CPU on this
 * machine whatever its size, 40–100 µs of it on the event loop in the call itself. pino's writer
 * issues one per line whenever the previous write has finished, which at low concurrency is every
 * line, and its own batching (minLength) re-measures the whole pending buffer on every line. So
 * request lines wait here, as an array, and go to the writer as one string when BATCH_DELAY_MS has
 * passed or BATCH_CHARS have gathered. Nothing is ever dropped: the queue is unbounded, drain()
 * hands it over, and the process's exit writes what is left.
 */
export class BatchedLines {
  private readonly writer: LineWriter;
  private readonly delayMs: number;
  private readonly maxChars: number;
  private pending: string[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(writer: LineWriter, opts: { delayMs?: number; maxChars?: number } = {}) {
    this.writer = writer;
    this.delayMs = opts.delayMs ?? BATCH_DELAY_MS;
    this.maxChars = opts.maxChars ?? BATCH_CHARS;
  }

  /**
   * A request line (request-log.ts writes one per request, here rather than through pino): it waits
   * for company. The timer is not unref'd: a process with lines still waiting lives the few ms it
   * takes to write them.
   */
  queue(line: string): void {
    this.pending.push(line);
    this.chars += line.length;
    if (this.chars >= this.maxChars) this.handOver();
    else this.timer ??= setTimeout(this.handOver, this.delayMs);
  }

  /**
   * pino's destination interface: one serialised line, newline included. Whatever pino writes (an
   * audit event, a warning, an error) goes now, with the request lines queued before it, so a SIGKILL
   * loses no more of those than before batching.
   */
  write(line: string): boolean {
    this.pending.push(line);
    this.chars += line.length;
    this.handOver();
    return true;
  }

  /** Gives every waiting line to the writer now, as one string. */
  readonly handOver = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending.length === 1 ? (this.pending[0] as string) : this.pending.join('');
    this.pending = [];
    this.chars = 0;
    this.writer.write(batch);
  };

  /** On exit, when no more asynchronous work can run: everything, written synchronously. */
  flushSync(): void {
    this.handOver();
    this.writer.flushSync();
  }

  /** Resolves once every line logged so far has been written to the descriptor, or after timeoutMs. */
  drain(timeoutMs: number): Promise<void> {
    this.handOver();
    const writer = this.writer;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        writer.off('drain', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      writer.once('drain', done);
      // An empty write makes the writer report 'drain' after everything queued before it (its own
      // flush() returns at once when it has no minimum length).
      try {
        writer.write('');
      } catch {
        done(); // already ended: nothing is left to drain
      }
    });
  }
}

let stdout: BatchedLines | undefined;

/** The one stdout destination of this process, created on first use. */
export function stdoutDestination(): BatchedLines {
  if (stdout) return stdout;
  const lines = new BatchedLines(pino.destination({ dest: 1, sync: false }));
  // pino's writer registers its own exit hook for what it holds; this one hands it the batch first.
  process.once('exit', () => lines.flushSync());
  stdout = lines;
  return lines;
}

/** Resolves once every line logged so far has been handed to stdout, or after timeoutMs at worst. */
export function drainLogs(timeoutMs = 2_000): Promise<void> {
  return stdout ? stdout.drain(timeoutMs) : Promise.resolve();
}
