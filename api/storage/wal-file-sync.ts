// The fsync behind SQLite's group commit: fdatasync of the database's -wal file on libuv's thread
// pool, so the event loop never waits on the disk.
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface WalFileSync {
  /** Makes every frame written to the WAL so far durable. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * SQLite creates the WAL on the first write and removes it only when the last connection closes, so
 * the handle is opened on the first sync and kept; the directory is synced once so the file's name
 * survives a power loss too. SQLite locks the database and -shm files, never the WAL, so a handle of
 * our own on it cannot release SQLite's POSIX locks when closed.
 */
export function walFileSync(databaseFile: string): WalFileSync {
  let handle: Promise<FileHandle> | undefined;
  const opened = async (): Promise<FileHandle> => {
    const wal = await open(`${databaseFile}-wal`, 'r');
    try {
      const dir = await open(dirname(databaseFile), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch (err) {
      await wal.close();
      throw err;
    }
    return wal;
  };
  return {
    async sync() {
      handle ??= opened();
      await (await handle).datasync();
    },
    async close() {
      const h = handle;
      handle = undefined;
      if (h) await (await h.catch(() => undefined))?.close();
    },
  };
}
