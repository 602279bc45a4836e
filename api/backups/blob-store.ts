// Where snapshot data lives: a key/stream interface with a filesystem store under COLONY_DATA_DIR.
// Keys look like `<snapshotId>/database/0003.copy`; an object store (S3) can implement the same four calls.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface BlobStore {
  /** Streams `source` into the blob at `key` and answers how many bytes were written. */
  put(key: string, source: Readable | AsyncIterable<Buffer | string> | Iterable<string>): Promise<number>;
  get(key: string): Promise<Readable>;
  /** Total bytes stored under `prefix`. */
  size(prefix: string): Promise<number>;
  /** Removes every blob under `prefix`; nothing to remove is not an error. */
  remove(prefix: string): Promise<void>;
}

const KEY = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;

export class FilesystemBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Keys are relative and may not climb out of the root. */
  private path(key: string): string {
    if (!KEY.test(key) || key.split('/').some((p) => p === '..' || p === '.'))
      throw new Error(`invalid blob key ${JSON.stringify(key)}`);
    return join(this.root, key);
  }

  async put(
    key: string,
    source: Readable | AsyncIterable<Buffer | string> | Iterable<string>,
  ): Promise<number> {
    const path = this.path(key);
    // A source failing while the folder is made (a closed connection) must reject, not crash.
    let early: unknown;
    const hold = (err: unknown) => {
      early = err;
    };
    if (source instanceof Readable) source.once('error', hold);
    await mkdir(dirname(path), { recursive: true });
    if (source instanceof Readable) source.off('error', hold);
    if (early) throw early;
    const partial = `${path}.partial`;
    // A large buffer lets fs batch the many small COPY chunks into few writev calls.
    const out = createWriteStream(partial, { highWaterMark: 1 << 20 });
    await pipeline(source, out);
    // Renamed only once complete, so a crash mid-write never leaves a blob that looks whole.
    await rename(partial, path);
    return out.bytesWritten;
  }

  async get(key: string): Promise<Readable> {
    const path = this.path(key);
    await stat(path);
    return createReadStream(path);
  }

  async size(prefix: string): Promise<number> {
    const dir = this.path(prefix);
    let total = 0;
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.isFile()) total += (await stat(join(e.parentPath, e.name))).size;
    }
    return total;
  }

  async remove(prefix: string): Promise<void> {
    const dir = this.path(prefix);
    if (!dir.startsWith(this.root + sep)) throw new Error('refusing to remove the blob root');
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads a whole (small) blob as text: manifests and resource specs. */
export async function readBlobText(store: BlobStore, key: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.get(key)) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
