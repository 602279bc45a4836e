// Following a server job: paced by Retry-After, a spinner only on a terminal, Ctrl-C stops waiting.
import { describe, expect, it } from 'vitest';
import { follow, WaitInterrupted } from '../../../cli/progress.ts';
import { describeFailure } from '../../../cli/report-failure.ts';
import { retryAfterSeconds } from '../../../cli/sdk/client.ts';
import type { CommandIo } from '../../../cli/spec.ts';

const io = (over: Partial<CommandIo> = {}): CommandIo => ({ out() {}, err() {}, env: {}, cwd: '/', ...over });

/** A job that reads `pending`, `running`, then `completed`, each with the Retry-After given. */
function job(retryAfter: (number | undefined)[]) {
  const statuses = ['pending', 'running', 'completed'];
  let reads = 0;
  return async () => {
    const i = Math.min(reads++, statuses.length - 1);
    return { value: { status: statuses[i] as string }, retryAfterSeconds: retryAfter[i] };
  };
}

const interrupted = {
  message: 'stopped waiting; the job carries on',
  hint: 'check with colony backups show x',
};

describe('follow', () => {
  it('waits as long as the server’s Retry-After says, else the default interval', async () => {
    const waits: number[] = [];
    const done = await follow({
      io: io(),
      read: job([2, undefined]),
      settled: (v) => v.status === 'completed',
      describe: (v) => v.status,
      interrupted,
      intervalMs: 500,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(done).toEqual({ status: 'completed' });
    expect(waits).toEqual([2000, 500]);
  });

  it('shows a progress line on a terminal and clears it at the end', async () => {
    const lines: string[] = [];
    await follow({
      io: io({ tty: true, status: (t) => lines.push(t) }),
      read: job([0, 0]),
      settled: (v) => v.status === 'completed',
      describe: (v) => `snapshot ${v.status}`,
      interrupted,
      sleep: async () => {},
    });
    expect(lines.some((l) => /^\S+ snapshot pending \(\d+s\)$/.test(l))).toBe(true);
    expect(lines.some((l) => l.includes('snapshot running'))).toBe(true);
    expect(lines.at(-1)).toBe('');
  });

  it('is quiet when piped', async () => {
    const lines: string[] = [];
    await follow({
      io: io({ tty: false, status: (t) => lines.push(t) }),
      read: job([0, 0]),
      settled: (v) => v.status === 'completed',
      describe: (v) => v.status,
      interrupted,
      sleep: async () => {},
    });
    expect(lines).toEqual([]);
  });

  it('stops waiting on Ctrl-C, saying the job carries on, with exit code 130', async () => {
    const ctrlC = new AbortController();
    const failure = await follow({
      io: io({ signal: ctrlC.signal }),
      read: job([1, 1]),
      settled: (v) => v.status === 'completed',
      describe: (v) => v.status,
      interrupted,
      sleep: (_ms, signal) => {
        ctrlC.abort(new DOMException('interrupted', 'AbortError'));
        return Promise.reject(signal?.reason);
      },
    }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WaitInterrupted);
    expect(describeFailure(failure)).toEqual({ code: 130, ...interrupted });
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    ['2', 2],
    [' 10 ', 10],
    ['Thu, 26 Nov 2026 00:00:30 GMT', 30],
    ['soon', undefined],
    [null, undefined],
  ])('%j → %j', (header, seconds) => {
    expect(retryAfterSeconds(header, Date.parse('2026-11-26T00:00:00Z'))).toBe(seconds);
  });
});
