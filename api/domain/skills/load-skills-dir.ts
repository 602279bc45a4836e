// Reads the published skills from a folder of <name>/SKILL.md into storage records.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileDigest } from './skill-digest.ts';
import { parseSkillFile, SkillFileError } from './skill-file.ts';
import type { SkillRecord } from './skills-repo.ts';

/**
 * Skills are written with a `{base_url}` placeholder; it is replaced before hashing so that the
 * published text points at this deployment and the digest matches the bytes it serves.
 */
export function loadSkillsDir(dir: string, baseUrl: string): Omit<SkillRecord, 'updatedAt'>[] {
  const skills: Omit<SkillRecord, 'updatedAt'>[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const folder = join(dir, entry);
    if (!statSync(folder).isDirectory()) continue;
    const file = join(folder, 'SKILL.md');
    const content = readFileSync(file, 'utf8').replaceAll('{base_url}', baseUrl);
    const { frontmatter } = parseSkillFile(content, file);
    if (frontmatter.name !== entry) {
      throw new SkillFileError(
        `${file}: frontmatter name "${frontmatter.name}" must match its folder "${entry}"`,
      );
    }
    const { name, description, ...rest } = frontmatter;
    skills.push({ name, description, content, digest: fileDigest(content), metadata: rest });
  }
  return skills;
}
