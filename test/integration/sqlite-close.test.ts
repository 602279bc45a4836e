// Closing an embedded database must finish on its own: its checkpointer thread is unreferenced while
// it works, and a process with nothing else alive (a script, `npm run bench`) once exited with
// "unsettled top-level await" inside close() instead of closing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('closes an SQLite database in a process with nothing else to keep it alive', () => {
  const dir = mkdtempSync(join(tmpdir(), 'colony-close-'));
  try {
    const storage = new URL('../../api/app-storage.ts', import.meta.url).href;
    const script = `
      const { openStorage } = await import(${JSON.stringify(storage)});
      const s = await openStorage({ kind: 'sqlite', file: ${JSON.stringify(join(dir, 'colony.db'))} });
      await s.jobs.create({ type: 'x', input: {}, maxAttempts: 1 }, Date.now());
      await s.close();
      console.log('closed');`;
    const file = join(dir, 'close.mjs');
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    expect(run.stderr).not.toMatch(/unsettled/);
    expect(run.stdout.trim()).toBe('closed');
    expect(run.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
