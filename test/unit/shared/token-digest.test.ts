import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type DigestMemo, tokenDigest, withDigestMemo } from '../../../api/shared/token-digest.ts';

const sha = (token: string, encoding: 'hex' | 'base64url') => hash('sha256', token, encoding);

describe('tokenDigest', () => {
  it('is SHA-256 in the asked encoding, with or without a memo lent', () => {
    const memo: DigestMemo = { token: 'tok-a' };
    for (const encoding of ['hex', 'base64url'] as const) {
      expect(tokenDigest('tok-a', encoding)).toBe(sha('tok-a', encoding));
      expect(withDigestMemo(memo, () => tokenDigest('tok-a', encoding))).toBe(sha('tok-a', encoding));
    }
    expect(memo).toEqual({ token: 'tok-a', hex: sha('tok-a', 'hex'), base64url: sha('tok-a', 'base64url') });
  });

  it('answers from the memo only for the token it was made for', () => {
    // A memo holding a wrong digest shows which answers came from it.
    const memo: DigestMemo = { token: 'tok-a', hex: 'remembered' };
    expect(withDigestMemo(memo, () => tokenDigest('tok-a', 'hex'))).toBe('remembered');
    expect(withDigestMemo(memo, () => tokenDigest('tok-b', 'hex'))).toBe(sha('tok-b', 'hex'));
    expect(memo).toEqual({ token: 'tok-a', hex: 'remembered' });
  });

  it('lends the memo for the call only, and gives back the one lent before', () => {
    const outer: DigestMemo = { token: 'tok-a', hex: 'outer' };
    const inner: DigestMemo = { token: 'tok-a', hex: 'inner' };
    const seen = withDigestMemo(outer, () => [
      tokenDigest('tok-a', 'hex'),
      withDigestMemo(inner, () => tokenDigest('tok-a', 'hex')),
      tokenDigest('tok-a', 'hex'),
    ]);
    expect(seen).toEqual(['outer', 'inner', 'outer']);
    expect(tokenDigest('tok-a', 'hex')).toBe(sha('tok-a', 'hex'));
    expect(() =>
      withDigestMemo(outer, () => {
        throw new Error('verifier failed');
      }),
    ).toThrow('verifier failed');
    expect(tokenDigest('tok-a', 'hex')).toBe(sha('tok-a', 'hex'));
  });
});
