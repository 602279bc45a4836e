// Where the API's log lines go: one asynchronous stdout writer per process, drained before exit.
import pino from 'pino';

type Destination = ReturnType<typeof pino.destination>;

let stdout: Destination | undefined;

/**
 * pino's asynchronous destination: a request never waits on the pipe to the container runtime, and
 * lines logged while one write is in flight leave together in the next. pino itself writes what is
 * still queued synchronously on process exit; drainLogs() is the orderly way before that.
 */
export function stdoutDestination(): Destination {
  stdout ??= pino.destination({ dest: 1, sync: false });
  return stdout;
}

/** Resolves once every line logged so far has been handed to stdout, or after timeoutMs at worst. */
export function drainLogs(timeoutMs = 2_000): Promise<void> {
  const dest = stdout;
  if (!dest) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      dest.off('drain', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    dest.once('drain', done);
    // An empty write makes the writer report 'drain' after everything queued before it, as its own
    // flush() does when it buffers; with no minimum length that flush() returns at once.
    try {
      dest.write('');
    } catch {
      done(); // already ended: nothing is left to drain
    }
  });
}
