// Pure: the Agent Skills discovery index (v0.2.0) whose digests are those of the bytes we serve.
import { skillDigest } from '../domain/skills/skill-digest.ts';
import type { SkillRecord } from '../domain/skills/skills-repo.ts';

export const SKILLS_INDEX_VERSION = '0.2.0';

export function buildSkillsIndex(skills: readonly SkillRecord[]) {
  return {
    version: SKILLS_INDEX_VERSION,
    skills: skills.map((s) => {
      const files = [{ path: 'SKILL.md', digest: s.digest }];
      return { name: s.name, description: s.description, digest: skillDigest(files), files };
    }),
  };
}
