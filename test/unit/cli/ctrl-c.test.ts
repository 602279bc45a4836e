// Ctrl-C during `colony backups create --wait`, in a real process: it stops waiting at once, exits
// 130 saying the snapshot carries on, and sends the server nothing after the request that started it.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';

const snapshot = {
  id: 'snap_0123456789abcdef01234567',
  office: 'acme',
  status: 'running',
  trigger: 'manual',
  description: null,
  sizeBytes: 0,
  parts: {},
  error: null,
  createdAt: '2026-11-26T00:00:00.000Z',
  completedAt: null,
};

const seen: string[] = [];
// A snapshot that runs for ever, with a long Retry-After so the CLI is waiting when Ctrl-C comes.
const server = createServer((req, res) => {
  seen.push(`${req.method} ${req.url}`);
  req.resume();
  res.writeHead(req.method === 'POST' ? 202 : 200, {
    'content-type': 'application/json',
    'retry-after': '30',
  });
  res.end(JSON.stringify(snapshot));
});
let endpoint = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('Ctrl-C while waiting', () => {
  it('stops waiting, exits 130, says the job carries on and leaves the server alone', async () => {
    const child = spawn(
      process.execPath,
      ['cli/colony.js', 'backups', 'create', '--office', 'acme', '--wait', '--endpoint', endpoint],
      { env: { ...process.env, COLONY_API_KEY: 'col_test' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await eventually(async () => seen.some((line) => line.startsWith('GET /api/snapshots/snap_')));
    const requests = seen.length;
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stdout).toBe(`${snapshot.id} running\n`);
    expect(stderr).toBe(
      `colony: stopped waiting; snapshot ${snapshot.id} carries on at the server\n` +
        `hint: check on it with \`colony backups show ${snapshot.id}\`\n`,
    );
    expect(seen.slice(0, 1)).toEqual(['POST /api/snapshots']);
    expect(seen).toHaveLength(requests);
  });
});
