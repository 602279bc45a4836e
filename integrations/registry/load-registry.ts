// Loads integrations/<id>/manifest.yaml into a registry, failing with the file and field at fault.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { type IntegrationManifest, integrationManifestSchema } from './manifest-schema.ts';

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  readonly file: string;
  readonly field: string;

  constructor(file: string, field: string, message: string) {
    super(`${file}: ${field ? `${field}: ` : ''}${message}`);
    this.file = file;
    this.field = field;
  }
}

export interface IntegrationRegistry {
  readonly dir: string;
  list(): IntegrationManifest[];
  get(id: string): IntegrationManifest | undefined;
}

const formatPath = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('');

export function parseManifestFile(file: string, displayName = file): IntegrationManifest {
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ManifestError(displayName, '', `not valid YAML: ${(err as Error).message}`);
  }
  const parsed = integrationManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ManifestError(displayName, formatPath(issue?.path ?? []), issue?.message ?? 'invalid');
  }
  return parsed.data;
}

/** Every folder holding a manifest.yaml is one integration; its folder name must equal its id. */
export function loadRegistry(dir: string): IntegrationRegistry {
  const byId = new Map<string, IntegrationManifest>();
  for (const entry of readdirSync(dir).sort()) {
    const folder = join(dir, entry);
    const file = join(folder, 'manifest.yaml');
    if (!statSync(folder).isDirectory() || !existsSync(file)) continue;
    const shown = relative(process.cwd(), file) || file;
    const manifest = parseManifestFile(file, shown);
    if (manifest.id !== entry)
      throw new ManifestError(shown, 'id', `"${manifest.id}" must equal its folder name "${entry}"`);
    if (!existsSync(join(folder, manifest.guideFile))) {
      throw new ManifestError(shown, 'guideFile', `${manifest.guideFile} does not exist beside the manifest`);
    }
    byId.set(manifest.id, manifest);
  }
  return { dir, list: () => [...byId.values()], get: (id) => byId.get(id) };
}
