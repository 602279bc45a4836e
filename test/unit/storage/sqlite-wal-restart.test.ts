// Under sustained writes the WAL must start over from the checkpointer's quiet passes, long before
// the event loop's own backstop checkpoint (10,000 pages) would run inside a COMMIT.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pace } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { SqliteDriver } from '../../../api/storage/sqlite-driver.ts';

const BACKSTOP_BYTES = 10_000 * 4096;
let dir: string | undefined;

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The WAL header's salt-1, which SQLite changes each time the WAL starts over. */
function walSalt(file: string): number {
  const fd = openSync(`${file}-wal`, 'r');
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    return header.readUInt32BE(16);
  } finally {
    closeSync(fd);
  }
}

it('starts the WAL over from quiet checkpoints while writers never stop, and keeps every row', async () => {
  dir = mkdtempSync(join(tmpdir(), 'colony-wal-'));
  const file = join(dir, 'colony.db');
  const db = new SqliteDriver(file);
  try {
    await db.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)');
    const firstSalt = walSalt(file);
    const row = new Uint8Array(3000).fill(7);
    let written = 0;
    let largestWal = 0;
    // 8 writers, each committing about once a millisecond (some 20,000 WAL frames a second, about
    // what 3,000 checkout creates a second write): the commits never pause long enough for a pass
    // to copy the whole WAL, so it starts over only when the writes are held back for one.
    const writer = async () => {
      while (written < 16_000) {
        await db.transaction(async (tx) => {
          for (let i = 0; i < 2; i++) await tx.query('INSERT INTO t (v) VALUES ($1)', [row]);
        });
        written += 2;
        largestWal = Math.max(largestWal, statSync(`${file}-wal`).size);
        await pace(1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    expect(db.quietCheckpoints).toBeGreaterThan(0);
    expect(walSalt(file)).not.toBe(firstSalt);
    // Started over before the backstop: the file never grew to its 10,000 pages.
    expect(largestWal).toBeLessThan(BACKSTOP_BYTES);
    const [count] = await db.query<{ n: number }>('SELECT count(*) AS n FROM t');
    expect(Number(count?.n)).toBe(written);
  } finally {
    await db.close();
  }
});
