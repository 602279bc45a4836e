// Pure: seals a secret under a fresh one-time key (AES-256-GCM), so whoever holds only the sealed
// text, or only the key, learns nothing; `context` binds the seal to who may open it.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealed {
  /** base64url: IV, ciphertext, authentication tag. */
  sealed: string;
  /** base64url: the 256-bit key, the only one that opens `sealed`. */
  key: string;
}

export function sealSecret(plaintext: string, context: string): Sealed {
  const key = randomBytes(32);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    sealed: Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url'),
    key: key.toString('base64url'),
  };
}

/** The plaintext, or undefined when the key, the context or the sealed text is not the one sealed. */
export function openSecret(sealed: string, key: string, context: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  const k = Buffer.from(key, 'base64url');
  if (k.length !== 32 || bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', k, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
