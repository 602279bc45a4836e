// Argon2id password hashes (node:crypto, OpenSSL) in the PHC string format, verified in constant time.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';

export interface Argon2Params {
  /** Memory in KiB. */
  m: number;
  /** Passes. */
  t: number;
  /** Lanes. */
  p: number;
}

/** OWASP's first recommended configuration for argon2id (19 MiB, two passes, one lane). */
export const DEFAULT_PARAMS: Argon2Params = { m: 19_456, t: 2, p: 1 };

const TAG_LENGTH = 32;
const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

function derive(password: string, salt: Buffer, params: Argon2Params, tagLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2(
      'argon2id',
      {
        message: password,
        nonce: salt,
        parallelism: params.p,
        tagLength,
        memory: params.m,
        passes: params.t,
      },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

export async function hashPassword(password: string, params: Argon2Params = DEFAULT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const tag = await derive(password, salt, params, TAG_LENGTH);
  return `$argon2id$v=19$m=${params.m},t=${params.t},p=${params.p}$${b64(salt)}$${b64(tag)}`;
}

export function parseHash(phc: string): { params: Argon2Params; salt: Buffer; tag: Buffer } | undefined {
  const m = PHC.exec(phc);
  if (!m) return undefined;
  return {
    params: { m: Number(m[1]), t: Number(m[2]), p: Number(m[3]) },
    salt: Buffer.from(m[4] ?? '', 'base64'),
    tag: Buffer.from(m[5] ?? '', 'base64'),
  };
}

export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const parsed = parseHash(phc);
  if (!parsed) return false;
  const tag = await derive(password, parsed.salt, parsed.params, parsed.tag.length);
  return timingSafeEqual(tag, parsed.tag);
}

/** True when a stored hash was made with weaker parameters than today's, so sign-in can upgrade it. */
export function needsRehash(phc: string, params: Argon2Params = DEFAULT_PARAMS): boolean {
  const parsed = parseHash(phc);
  return !parsed || parsed.params.m < params.m || parsed.params.t < params.t || parsed.params.p !== params.p;
}

let dummy: Promise<string> | undefined;
/**
 * Spends the time of one verification, so a sign-in for an unknown email takes as long as a wrong
 * password and response times do not reveal which emails have accounts.
 */
export async function burnVerification(password: string): Promise<void> {
  dummy ??= hashPassword('colony-dummy-password');
  await verifyPassword(password, await dummy);
}
