// Pure: the Agent Skills discovery index (RFC v0.2.0): each skill is one SKILL.md artifact, whose
// digest is the SHA-256 of the bytes its url serves.
import type { SkillRecord } from '../domain/skills/skills-repo.ts';
import { skillFileUrl } from '../public/presenters.ts';

/** The schema URI v0.2.0 names; clients match it to decide how to read the index. */
export const SKILLS_INDEX_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export function buildSkillsIndex(baseUrl: string, skills: readonly SkillRecord[]) {
  return {
    $schema: SKILLS_INDEX_SCHEMA,
    skills: skills.map((s) => ({
      name: s.name,
      // Colony's skills are a SKILL.md alone, which the RFC says to publish as `skill-md`, not an archive.
      type: 'skill-md' as const,
      description: s.description,
      url: skillFileUrl(baseUrl, s.name),
      // Stored as `sha256:<hex>` of the SKILL.md bytes, exactly what the url serves.
      digest: s.digest,
    })),
  };
}
