// The API process at its shipped log level: lines are written asynchronously, yet on SIGTERM every
// request's line and every audit line reaches stdout before the process exits, with no secret in them.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/controller-process.ts';
import { eventually } from '../support/eventually.ts';
import { HttpBrowser } from '../support/http-browser.ts';
import { postgresUrl } from '../support/storage-targets.ts';

const main = new URL('../../main/api.ts', import.meta.url).pathname;
const REQUESTS = 300;

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe.each([
  { storage: 'sqlite', env: (): Record<string, string> => ({}) },
  { storage: 'postgres', env: (): Record<string, string> => ({ DATABASE_URL: postgresUrl() }) },
])('the API process on $storage at the default log level', ({ env }) => {
  it('writes every request line and the audit lines before it exits on SIGTERM', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'colony-logs-'));
    const { LOG_LEVEL: _shippedDefault, ...inherited } = process.env;
    const child = spawn(process.execPath, [main], {
      env: {
        ...inherited,
        KUBECONFIG: '',
        COLONY_RUN_CONTROLLER: 'false',
        PORT: String(port),
        HOST: '127.0.0.1',
        COLONY_BASE_URL: baseUrl,
        COLONY_DATA_DIR: dataDir,
        ...env(),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let logs = '';
    child.stdout?.on('data', (d) => {
      logs += d;
    });
    const exited = exitOf(child);
    try {
      const up = () =>
        fetch(`${baseUrl}/healthz`)
          .then((r) => r.ok)
          .catch(() => false);
      await eventually(up, 30_000);
      const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
      const email = `log-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`;
      await new HttpBrowser(baseUrl).signUp({ name: 'Log Test', email, password });
      // A burst, so that lines are still queued in the writer when the signal arrives.
      const ids = Array.from({ length: REQUESTS }, (_, i) => `burst-${i}`);
      const answers = await Promise.all(
        ids.map((id) => fetch(`${baseUrl}/api/v1/pricing`, { headers: { 'x-request-id': id } })),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);

      const lines = logs
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const requestLines = lines.filter((l) => l.msg === 'request completed');
      const logged = new Set(requestLines.map((l) => l.requestId));
      expect(ids.filter((id) => !logged.has(id))).toEqual([]);
      // One line per request: none of them is written twice.
      expect(requestLines.filter((l) => String(l.requestId).startsWith('burst-'))).toHaveLength(REQUESTS);
      expect(lines.filter((l) => l.msg === 'account created')).toHaveLength(1);
      expect(lines.some((l) => l.msg === 'shutting down')).toBe(true);
      expect(logs).not.toContain(password);
      expect(logs).not.toContain(email);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
