// `colony integrations validate [dir]`: checks a folder of manifests (default ./integrations).
import { resolve } from 'node:path';
import { loadRegistry } from '../../../integrations/registry/load-registry.ts';
import { validateDir } from '../../../integrations/registry/validate-dir.ts';
import type { Command } from '../../args.ts';

const bundledDir = new URL('../../../integrations', import.meta.url).pathname;

export const validate: Command = {
  summary: 'Check a folder of integration manifests; exits 1 naming each file and field at fault',
  usage: 'colony integrations validate [dir]',
  async run(args, io) {
    const dir = resolve(io.cwd, args.positionals[0] ?? 'integrations');
    const bundled = resolve(dir) === resolve(bundledDir) ? [] : loadRegistry(bundledDir).list();
    const { checked, problems } = validateDir(dir, bundled);
    for (const p of problems) io.err(`${p.file}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
    if (problems.length > 0) {
      io.err(`${problems.length} problem(s) found`);
      return 1;
    }
    if (checked.length === 0) {
      io.err(`${dir}: no <id>/manifest.yaml found`);
      return 1;
    }
    io.out(`${checked.length} integration(s) valid: ${checked.map((m) => m.id).join(', ')}`);
    return 0;
  },
};
