// Prefixed random ids for stored records (accounts, keys, memories): the one place that mints them.
import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** A prefixed random id (120 bits), lower case so it is safe in paths and cookies. */
export function randomId(prefix: string): string {
  const bytes = randomBytes(24);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}
