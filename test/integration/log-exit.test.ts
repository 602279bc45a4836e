// Log lines wait in a batch before they are written; a process that ends, by returning or by
// process.exit(), still writes every line it logged.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const destination = new URL('../../api/observability/log-destination.ts', import.meta.url).href;

/** Runs a process that logs `count` lines through the stdout destination, then ends as `ending` says. */
function logThenEnd(ending: string, count: number): Promise<{ code: number | null; lines: string[] }> {
  const script = `
    import pino from 'pino';
    import { stdoutDestination } from ${JSON.stringify(destination)};
    const log = pino({ level: 'info' }, stdoutDestination());
    for (let i = 0; i < ${count}; i++) log.info({ n: i }, 'audit line');
    ${ending}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve) => {
    child.once('close', (code) => resolve({ code, lines: out.trim().split('\n').filter(Boolean) }));
  });
}

describe('stdoutDestination', () => {
  it.each([
    { ending: '', how: 'when the event loop empties' },
    { ending: 'process.exit(0);', how: 'on process.exit() right after logging' },
  ])(
    'writes every logged line $how',
    async ({ ending }) => {
      // A child process that loads TypeScript: seconds on a loaded machine, hence the longer timeout.
      const { code, lines } = await logThenEnd(ending, 500);
      expect(code).toBe(0);
      expect(lines.map((l) => (JSON.parse(l) as { n: number }).n)).toEqual(
        Array.from({ length: 500 }, (_, i) => i),
      );
    },
    30_000,
  );
});
