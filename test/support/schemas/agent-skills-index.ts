// The Agent Skills discovery index, RFC v0.2.0 (cloudflare/agent-skills-discovery-rfc), written from
// its text: `$schema` and `skills`, each entry with name, type, description, url and digest.
import { z } from 'zod';

export const AGENT_SKILLS_INDEX_V0_2_0 = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

/** 1-64 of a-z, 0-9 and hyphens, no hyphen first, last or doubled (the Agent Skills name rules). */
const skillName = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/);

// Clients MUST ignore unrecognised fields, so neither object is closed.
export const agentSkillsIndex = z.object({
  $schema: z.literal(AGENT_SKILLS_INDEX_V0_2_0),
  skills: z.array(
    z.object({
      name: skillName,
      type: z.enum(['skill-md', 'archive']),
      description: z.string().min(1).max(1024),
      // Absolute, path-absolute or relative: resolved against the index URL (RFC 3986 §5).
      url: z.string().min(1),
      digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    }),
  ),
});
