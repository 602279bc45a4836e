// `colony integrations validate [dir]`: checks a folder of manifests (default ./integrations).
import { resolve } from 'node:path';
import { loadRegistry } from '../../../integrations/registry/load-registry.ts';
import { validateDir } from '../../../integrations/registry/validate-dir.ts';
import { printJson } from '../../output.ts';
import type { Handler } from '../../spec.ts';

const bundledDir = new URL('../../../integrations', import.meta.url).pathname;

export const run: Handler = async (ctx) => {
  const { io } = ctx;
  const dir = resolve(io.cwd, ctx.args[0] ?? 'integrations');
  const bundled = resolve(dir) === resolve(bundledDir) ? [] : loadRegistry(bundledDir).list();
  const { checked, problems } = validateDir(dir, bundled);
  const valid = problems.length === 0 && checked.length > 0;
  if (ctx.json) printJson(io, { dir, valid, checked: checked.map((m) => m.id), problems });
  for (const p of problems) io.err(`${p.file}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
  if (problems.length > 0) {
    io.err(`${problems.length} problem(s) found`);
    return 1;
  }
  if (checked.length === 0) {
    io.err(`${dir}: no <id>/manifest.yaml found`);
    return 1;
  }
  if (!ctx.json) io.out(`${checked.length} integration(s) valid: ${checked.map((m) => m.id).join(', ')}`);
  return 0;
};
