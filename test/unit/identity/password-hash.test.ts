// Argon2id password hashes: format, verification, upgrades.
import { describe, expect, it } from 'vitest';
import {
  hashPassword,
  needsRehash,
  parseHash,
  verifyPassword,
} from '../../../api/identity/accounts/password-hash.ts';

const weak = { m: 1024, t: 1, p: 1 };

describe('hashPassword', () => {
  it('writes a PHC argon2id string with a fresh salt each time', async () => {
    const a = await hashPassword('correct horse battery', weak);
    const b = await hashPassword('correct horse battery', weak);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(parseHash(a)?.salt).toHaveLength(16);
  });

  it('uses the memory-hard defaults (19 MiB, two passes) unless told otherwise', async () => {
    expect(parseHash(await hashPassword('correct horse battery'))?.params).toEqual({ m: 19_456, t: 2, p: 1 });
  });
});

describe('verifyPassword', () => {
  it('accepts the password and refuses anything else, including near misses', async () => {
    const phc = await hashPassword('correct horse battery', weak);
    expect(await verifyPassword('correct horse battery', phc)).toBe(true);
    expect(await verifyPassword('correct horse batterY', phc)).toBe(false);
    expect(await verifyPassword('', phc)).toBe(false);
  });

  it.each(['', 'plain', '$argon2i$v=19$m=1024,t=1,p=1$c2FsdHNhbHRzYWx0$aGFzaA', '$argon2id$v=19$m=x$a$b'])(
    'refuses a stored value that is not an argon2id hash: %j',
    async (stored) => {
      expect(await verifyPassword('anything', stored)).toBe(false);
    },
  );
});

describe('needsRehash', () => {
  it('asks for a rehash when the stored parameters are weaker than the defaults', async () => {
    expect(needsRehash(await hashPassword('x'.repeat(12), weak))).toBe(true);
    expect(needsRehash(await hashPassword('x'.repeat(12)))).toBe(false);
    expect(needsRehash('garbage')).toBe(true);
  });
});
