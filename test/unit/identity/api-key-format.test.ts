// API key format: prefix per environment, checksum, and what a listing may show.
import { describe, expect, it } from 'vitest';
import { apiKeyHint, generateApiKey, isWellFormedApiKey } from '../../../api/identity/keys/api-key-format.ts';

describe('generateApiKey', () => {
  it('makes col_ keys in production and col_test_ keys in the sandbox', () => {
    expect(generateApiKey('production')).toMatch(/^col_[0-9A-Za-z]{38}$/);
    expect(generateApiKey('sandbox')).toMatch(/^col_test_[0-9A-Za-z]{38}$/);
  });

  it('never repeats itself', () => {
    const keys = new Set(Array.from({ length: 500 }, () => generateApiKey('production')));
    expect(keys.size).toBe(500);
  });
});

describe('isWellFormedApiKey', () => {
  const key = generateApiKey('production');

  it('accepts a key of its own environment only', () => {
    expect(isWellFormedApiKey(key, 'production')).toBe(true);
    expect(isWellFormedApiKey(key, 'sandbox')).toBe(false);
    const sandbox = generateApiKey('sandbox');
    expect(isWellFormedApiKey(sandbox, 'sandbox')).toBe(true);
    expect(isWellFormedApiKey(sandbox, 'production')).toBe(false);
  });

  it('refuses a key with one character changed, thanks to the checksum', () => {
    const i = 10;
    const other = key[i] === 'a' ? 'b' : 'a';
    expect(isWellFormedApiKey(`${key.slice(0, i)}${other}${key.slice(i + 1)}`, 'production')).toBe(false);
  });

  it.each(['', 'col_', `${key}x`, key.slice(0, -1), key.replace('col_', 'cok_'), `col_${'-'.repeat(38)}`])(
    'refuses %j',
    (token) => {
      expect(isWellFormedApiKey(token, 'production')).toBe(false);
    },
  );
});

describe('apiKeyHint', () => {
  it('shows the prefix and six characters, not enough to use the key', () => {
    const key = generateApiKey('production');
    expect(apiKeyHint(key, 'production')).toBe(`${key.slice(0, 10)}…`);
  });
});
