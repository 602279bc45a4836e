// Pure: what an API key looks like. `col_` (or `col_test_` in the sandbox), 32 random base62
// characters, then a 6-character CRC-32 so scanners and the server reject a mistyped key offline.
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;

export function apiKeyPrefix(environment: 'production' | 'sandbox'): string {
  return environment === 'sandbox' ? 'col_test_' : 'col_';
}

function base62(n: number, width: number): string {
  let out = '';
  let v = n;
  for (let i = 0; i < width; i++) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECK_LENGTH);
}

/** A fresh key; 32 base62 characters carry 190 bits. */
export function generateApiKey(environment: 'production' | 'sandbox'): string {
  // Rejection sampling keeps every character uniformly likely.
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const b of randomBytes(BODY_LENGTH)) {
      if (b < 248 && body.length < BODY_LENGTH) body += BASE62[b % 62];
    }
  }
  const prefix = apiKeyPrefix(environment);
  return `${prefix}${body}${checksum(prefix + body)}`;
}

/** True when the token has this environment's prefix, the right length, alphabet and checksum. */
export function isWellFormedApiKey(token: string, environment: 'production' | 'sandbox'): boolean {
  const prefix = apiKeyPrefix(environment);
  if (!token.startsWith(prefix)) return false;
  // A production prefix is also the start of a sandbox key; the lengths keep them apart.
  const rest = token.slice(prefix.length);
  if (rest.length !== BODY_LENGTH + CHECK_LENGTH || !/^[0-9A-Za-z]+$/.test(rest)) return false;
  const body = rest.slice(0, BODY_LENGTH);
  return checksum(prefix + body) === rest.slice(BODY_LENGTH);
}

/** What a listing may show: the prefix and the first characters, never enough to use. */
export function apiKeyHint(token: string, environment: 'production' | 'sandbox'): string {
  return `${token.slice(0, apiKeyPrefix(environment).length + 6)}…`;
}
