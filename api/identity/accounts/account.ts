// The Account every surface sees, and the rules for what a valid sign-up looks like.
import { z } from 'zod';
import { randomId } from '../../shared/random-id.ts';
import type { AccountRecord } from './accounts-repo.ts';

/** What other surfaces get from currentAccount(): never the password hash. */
export interface Account {
  /** `acct_` + 24 random base32 characters. */
  id: string;
  email: string;
  name: string;
  createdAt: number;
}

export const PASSWORD_MIN = 10;
/** Long enough for any passphrase, short enough that hashing it is not a denial of service. */
export const PASSWORD_MAX = 256;

export const newAccountId = () => randomId('acct');

/** True when `s` holds a C0 control character or DEL (never legitimate in names, emails or paths). */
export function hasControlCharacters(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Emails compare case-insensitively; the stored form is trimmed and lower case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const emailField = z
  .string()
  .trim()
  .max(254, 'is too long')
  .pipe(z.email('is not an email address'))
  .transform(normalizeEmail);

export const passwordField = z
  .string()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`);

export const nameField = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(100, 'must be at most 100 characters')
  .refine((s) => !hasControlCharacters(s), 'must not contain control characters');

export const toAccount = (r: AccountRecord): Account => ({
  id: r.id,
  email: r.email,
  name: r.name,
  createdAt: r.createdAt,
});
