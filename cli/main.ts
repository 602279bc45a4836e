// The `colony` process: real stdout/stderr, a status line on a terminal, and Ctrl-C: the first press
// stops any wait (the job carries on at the server), a second one exits. cli/colony.js starts it.
import { runCli } from './run.ts';

export async function main(argv: readonly string[]): Promise<void> {
  // `colony … | head`: the reader has gone; stop quietly, as a Unix tool does, instead of a stack trace.
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(process.exitCode ?? 0);
    });
  const interrupt = new AbortController();
  process.on('SIGINT', () => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort(new DOMException('interrupted', 'AbortError'));
    // A command that is not waiting has nothing to stop: leave after a moment.
    setTimeout(() => process.exit(130), 1000).unref();
  });
  process.exitCode = await runCli(argv, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
    cwd: process.cwd(),
    tty: process.stderr.isTTY === true,
    status: (text) => process.stderr.write(`\r\x1b[K${text}`),
    signal: interrupt.signal,
  });
}
