// "2xx means durable" on SQLite with group commit: every checkout the API process acknowledged is in
// the database file after the process is killed with SIGKILL, mid-load, with no chance to flush.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/controller-process.ts';
import { eventually } from '../support/eventually.ts';

const main = new URL('../../main/api.ts', import.meta.url).pathname;
const BODY = JSON.stringify({ line_items: [{ item: { id: 'plan_pro_monthly' } }] });

let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('SQLite writes under SIGKILL', () => {
  it('keeps every checkout session that was answered 201', async () => {
    const port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), 'colony-crash-'));
    child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        KUBECONFIG: '',
        COLONY_RUN_CONTROLLER: 'false',
        DATABASE_URL: '',
        PORT: String(port),
        HOST: '127.0.0.1',
        COLONY_DATA_DIR: dataDir,
        COLONY_CHECKOUT_RATE_LIMIT: '1000000',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok);

    // Writers keep going while the process is killed: some requests are answered, some never are.
    const acknowledged: string[] = [];
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const res = await fetch(`${base}/checkout_sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `crash-${w}-${i}` },
          body: BODY,
        }).catch(() => undefined);
        if (!res) return;
        expect(res.status).toBe(201);
        acknowledged.push(((await res.json()) as { id: string }).id);
        if (acknowledged.length >= 200 && !killed) {
          killed = true;
          child?.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, w) => writer(w)));
    await exited;

    const db = new DatabaseSync(join(dataDir, 'colony.db'));
    try {
      const stored = new Set(
        (db.prepare('SELECT id FROM checkout_sessions').all() as { id: string }[]).map((r) => r.id),
      );
      expect(acknowledged.length).toBeGreaterThanOrEqual(200);
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      db.close();
    }
  });
});
