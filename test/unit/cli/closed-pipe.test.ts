// `colony … | head`: when the reader closes the pipe early, the CLI stops quietly with its exit code,
// not with an EPIPE stack trace.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('a closed stdout', () => {
  it('ends the process quietly', async () => {
    const child = spawn(process.execPath, ['cli/colony.js', '--help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // The reader is gone before the first line is written, as when `head` has already exited.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
