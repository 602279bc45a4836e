// Validates a folder of manifests written outside the registry (`colony integrations validate`):
// every manifest rule, plus references checked against the bundled registry and the folder together.
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { registryProblems } from './composition.ts';
import { checkRegistryDir, type ManifestProblem } from './load-registry.ts';
import type { IntegrationManifest } from './manifest-schema.ts';

export interface DirValidation {
  checked: IntegrationManifest[];
  problems: ManifestProblem[];
}

/** `dir` is a registry-like folder of `<id>/manifest.yaml`, or one integration's own folder. */
export function validateDir(dir: string, bundled: readonly IntegrationManifest[]): DirValidation {
  const abs = resolve(dir);
  const single = existsSync(`${abs}/manifest.yaml`);
  const root = single ? dirname(abs) : abs;
  const only = single ? basename(abs) : undefined;
  const result = checkRegistryDir(root);
  const inScope = (file: string) => !only || file.includes(`${only}/manifest.yaml`) || file === root;
  const checked = result.manifests.filter((m) => !only || m.id === only);
  // References are resolved against the folder's manifests and the bundled ones they do not replace.
  const mine = new Set(checked.map((m) => m.id));
  const world = [...bundled.filter((m) => !mine.has(m.id)), ...checked];
  const linkProblems = registryProblems(world)
    .filter((p) => mine.has(p.id))
    .map((p) => ({ file: `${p.id}/manifest.yaml`, field: p.field, message: p.message }));
  const own = result.problems.filter(
    (p) => inScope(p.file) && !/neither an integration id|dependency cycle/.test(p.message),
  );
  return { checked, problems: [...own, ...linkProblems] };
}
