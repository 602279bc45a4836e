// sealSecret / openSecret: only the one key, with the same context, opens a seal.
import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from '../../../api/identity/keys/sealed-secret.ts';

describe('sealSecret', () => {
  const secret = 'col_0123456789abcdefghijklmnopqrstuvwxyzAB';

  it('opens with its key and context, and hides the secret in the sealed text', () => {
    const { sealed, key } = sealSecret(secret, 'acct_a:reveal_1');
    expect(sealed).not.toContain(secret);
    expect(openSecret(sealed, key, 'acct_a:reveal_1')).toBe(secret);
  });

  it('uses a fresh key every time', () => {
    expect(sealSecret(secret, 'c').key).not.toBe(sealSecret(secret, 'c').key);
  });

  it.each([
    ['another key', (s: { sealed: string; key: string }) => [s.sealed, sealSecret('x', 'c').key, 'c']],
    ['another context', (s: { sealed: string; key: string }) => [s.sealed, s.key, 'other']],
    ['a truncated seal', (s: { sealed: string; key: string }) => [s.sealed.slice(0, 10), s.key, 'c']],
    ['a short key', (s: { sealed: string; key: string }) => [s.sealed, 'abc', 'c']],
  ])('refuses %s', (_what, change) => {
    const [sealed = '', key = '', context = ''] = change(sealSecret(secret, 'c'));
    expect(openSecret(sealed, key, context)).toBeUndefined();
  });
});
