// Digests as the Agent Skills discovery RFC v0.2.0 defines them: `sha256:` and 64 lowercase hex digits.
import { describe, expect, it } from 'vitest';
import { fileDigest } from '../../api/domain/skills/skill-digest.ts';

describe('fileDigest', () => {
  it('is the SHA-256 of the bytes, formatted as the index carries it', () => {
    expect(fileDigest('# Hello\n')).toBe(
      'sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be',
    );
    expect(fileDigest(new TextEncoder().encode('# Hello\n'))).toBe(fileDigest('# Hello\n'));
    expect(fileDigest('é')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
