// Prefixed random ids for stored records (accounts, keys, memories, sessions): the one place that mints them.
import { randomFillSync } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

// Random bytes are drawn from the kernel a pool at a time, as crypto.randomUUID does: one getrandom
// call serves many ids (a system call per id cost ~20 µs of a checkout create here). Every byte is
// handed out once.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

function take(n: number): Buffer {
  if (used + n > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const bytes = pool.subarray(used, used + n);
  used += n;
  return bytes;
}

/** `n` random bytes as lower-case hex. */
export function randomHex(n: number): string {
  return take(n).toString('hex');
}

/** A prefixed random id (120 bits), lower case so it is safe in paths and cookies. */
export function randomId(prefix: string): string {
  const bytes = take(24);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}
