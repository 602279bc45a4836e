// stripe-mock (Stripe's own mock of its API, built by scripts/ensure-stripe-mock.sh) on a loopback port.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const stripeMockBin = (): string =>
  process.env.STRIPE_MOCK_BIN ??
  join(
    process.env.COLONY_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'colony'),
    'bin',
    'stripe-mock',
  );

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface StripeMock {
  url: string;
  stop(): Promise<void>;
}

export async function startStripeMock(): Promise<StripeMock> {
  const bin = stripeMockBin();
  if (!existsSync(bin))
    throw new Error(`${bin} is missing: run bash scripts/ensure-stripe-mock.sh (make test does)`);
  const port = await freePort();
  // Its HTTPS listener would otherwise take the fixed :12112, which a second mock (or one left over
  // by a killed run) then finds taken, and exits: the system picks that port too.
  const child: ChildProcess = spawn(bin, ['-http-addr', `127.0.0.1:${port}`, '-https-addr', '127.0.0.1:'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/v1/balance`, { headers: { authorization: 'Bearer sk_test_123' } });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('stripe-mock did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
