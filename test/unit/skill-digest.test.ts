// Digests as the Agent Skills discovery RFC defines them, checked against its worked example.
import { describe, expect, it } from 'vitest';
import { fileDigest, skillDigest } from '../../api/domain/skills/skill-digest.ts';

describe('skillDigest', () => {
  it('reproduces the worked example of the discovery RFC', () => {
    const files = [
      { path: 'scripts/run.sh', digest: fileDigest('#!/bin/sh\n') },
      { path: 'SKILL.md', digest: fileDigest('# Hello\n') },
    ];
    expect(files[1]?.digest).toBe('sha256:90f8ec5669cd34183b9b0fdf8b94f5efb4c3672876330f4aa76088c2b4ad17be');
    expect(skillDigest(files)).toBe(
      'sha256:34f7a8c484e9991f3e71a309f31332d6335efc01f544105c4185a7c4ab12eb1e',
    );
  });
});
