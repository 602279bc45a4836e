// The job types the API accepts, each doing real work against the running service.
import { z } from 'zod';
import type { Storage } from '../../app-storage.ts';
import { loadSkillsDir } from '../skills/load-skills-dir.ts';
import { overallState, type Probe, runProbe } from '../status/probes.ts';
import type { JobHandler } from './job-runner.ts';

export interface JobDeps {
  storage: Storage;
  skillsDir: string;
  baseUrl: string;
  probes: () => Probe[];
  now: () => number;
}

export const jobTypeNames = ['skills.reindex', 'status.report'] as const;
export type JobTypeName = (typeof jobTypeNames)[number];

/** What each job type takes as `input`: the handlers and the API's request schema share these. */
export const jobInputs = {
  'skills.reindex': z.strictObject({}),
  'status.report': z.strictObject({ services: z.array(z.string().min(1).max(64)).min(1).max(32).optional() }),
} as const satisfies Record<JobTypeName, z.ZodType>;

export function buildJobHandlers(deps: JobDeps): Record<JobTypeName, JobHandler<never>> {
  const reindex: JobHandler<Record<string, never>> = {
    description:
      'Re-reads the published skills from disk and brings the skills catalogue in storage up to date.',
    input: jobInputs['skills.reindex'],
    maxAttempts: 5,
    async run() {
      return deps.storage.skills.replaceAll(loadSkillsDir(deps.skillsDir, deps.baseUrl), deps.now());
    },
  };
  const report: JobHandler<{ services?: string[] }> = {
    description:
      'Runs every health probe and records a status report; `services` narrows it to named services.',
    input: jobInputs['status.report'],
    maxAttempts: 3,
    async run(input) {
      const probes = deps.probes().filter((p) => !input.services || input.services.includes(p.name));
      const services = await Promise.all(probes.map((p) => runProbe(p)));
      return { status: overallState(services), services };
    },
  };
  return {
    'skills.reindex': reindex as JobHandler<never>,
    'status.report': report as JobHandler<never>,
  };
}
