// Parses and validates one SKILL.md in the Agent Skills format (YAML frontmatter + Markdown body).
import { parse } from 'yaml';
import { z } from 'zod';

export const skillNamePattern = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export const skillFrontmatterSchema = z.looseObject({
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(skillNamePattern, 'lowercase letters, digits and single hyphens only'),
  description: z.string().min(1).max(1024),
  license: z.string().optional(),
  compatibility: z.string().max(500).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  'allowed-tools': z.string().optional(),
});

export type SkillFrontmatter = z.infer<typeof skillFrontmatterSchema>;

export class SkillFileError extends Error {
  override readonly name = 'SkillFileError';
}

export function parseSkillFile(
  text: string,
  source: string,
): { frontmatter: SkillFrontmatter; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new SkillFileError(`${source}: missing YAML frontmatter between --- lines`);
  let raw: unknown;
  try {
    raw = parse(match[1] ?? '');
  } catch (err) {
    throw new SkillFileError(`${source}: frontmatter is not valid YAML: ${(err as Error).message}`);
  }
  const parsed = skillFrontmatterSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SkillFileError(
      `${source}: frontmatter ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  return { frontmatter: parsed.data, body: match[2] ?? '' };
}
