// Digests as the Agent Skills discovery index defines them: per file, and per skill over its files.
import { createHash } from 'node:crypto';

export function fileDigest(bytes: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** SHA-256 over `path \0 hex \n` lines sorted by path, so one value detects a change in any file. */
export function skillDigest(files: readonly { path: string; digest: string }[]): string {
  const lines = [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => `${f.path}\0${f.digest.replace(/^sha256:/, '')}\n`)
    .join('');
  return fileDigest(lines);
}
