// Loads integrations/<id>/manifest.yaml into a registry, failing with the file and field at fault.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { registryProblems } from './composition.ts';
import { type IntegrationManifest, integrationManifestSchema } from './manifest-schema.ts';
import { searchRegistry } from './search.ts';

export interface ManifestProblem {
  file: string;
  field: string;
  message: string;
}

const describe = (p: ManifestProblem) => `${p.file}: ${p.field ? `${p.field}: ` : ''}${p.message}`;

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
  readonly file: string;
  readonly field: string;
  readonly problems: ManifestProblem[];

  constructor(problems: ManifestProblem[]) {
    super(problems.map(describe).join('\n'));
    const first = problems[0] ?? { file: '', field: '', message: '' };
    this.file = first.file;
    this.field = first.field;
    this.problems = problems;
  }
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface IntegrationRegistry {
  readonly dir: string;
  list(): IntegrationManifest[];
  get(id: string): IntegrationManifest | undefined;
  /** Alias search: ids, names, aliases and capabilities, best first. */
  search(query: string): IntegrationManifest[];
  /** The database layer's migration files, in manifest order. */
  migrations(id: string): Migration[];
  /** The setup guide's markdown. */
  guide(id: string): string | undefined;
}

const formatPath = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('');

/** Parses one manifest; answers every problem it has rather than the first. */
export function checkManifestFile(
  file: string,
  displayName = file,
): { manifest?: IntegrationManifest; problems: ManifestProblem[] } {
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return {
      problems: [{ file: displayName, field: '', message: `not valid YAML: ${(err as Error).message}` }],
    };
  }
  const parsed = integrationManifestSchema.safeParse(raw);
  if (parsed.success) return { manifest: parsed.data, problems: [] };
  return {
    problems: parsed.error.issues.map((i) => ({
      file: displayName,
      field: formatPath(i.path),
      message: i.message,
    })),
  };
}

export function parseManifestFile(file: string, displayName = file): IntegrationManifest {
  const { manifest, problems } = checkManifestFile(file, displayName);
  if (!manifest) throw new ManifestError(problems);
  return manifest;
}

/** Folder-level rules: id equals the folder, the guide and migration files exist. */
function folderProblems(
  folder: string,
  entry: string,
  shown: string,
  m: IntegrationManifest,
): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  if (m.id !== entry)
    problems.push({ file: shown, field: 'id', message: `"${m.id}" must equal its folder name "${entry}"` });
  if (!existsSync(join(folder, m.guideFile)))
    problems.push({
      file: shown,
      field: 'guideFile',
      message: `${m.guideFile} does not exist beside the manifest`,
    });
  m.database?.migrations.forEach((name, i) => {
    if (!existsSync(join(folder, name)))
      problems.push({
        file: shown,
        field: `database.migrations[${i}]`,
        message: `${name} does not exist beside the manifest`,
      });
  });
  return problems;
}

export interface RegistryCheck {
  manifests: IntegrationManifest[];
  problems: ManifestProblem[];
}

/** Every folder holding a manifest.yaml is one integration; checks them all and the links between them. */
export function checkRegistryDir(dir: string): RegistryCheck {
  const manifests: IntegrationManifest[] = [];
  const problems: ManifestProblem[] = [];
  const fileOf = new Map<string, string>();
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    return { manifests, problems: [{ file: dir, field: '', message: 'not a folder' }] };
  }
  for (const entry of readdirSync(dir).sort()) {
    const folder = join(dir, entry);
    const file = join(folder, 'manifest.yaml');
    if (!statSync(folder).isDirectory() || !existsSync(file)) continue;
    const shown = relative(process.cwd(), file) || file;
    const checked = checkManifestFile(file, shown);
    problems.push(...checked.problems);
    if (!checked.manifest) continue;
    const own = folderProblems(folder, entry, shown, checked.manifest);
    problems.push(...own);
    if (own.length === 0) {
      manifests.push(checked.manifest);
      fileOf.set(checked.manifest.id, shown);
    }
  }
  for (const p of registryProblems(manifests))
    problems.push({ file: fileOf.get(p.id) ?? p.id, field: p.field, message: p.message });
  return { manifests, problems };
}

function readMigrations(dir: string, m: IntegrationManifest): Migration[] {
  return (m.database?.migrations ?? []).map((name) => {
    const sql = readFileSync(join(dir, m.id, name), 'utf8');
    return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
  });
}

export function loadRegistry(dir: string): IntegrationRegistry {
  const { manifests, problems } = checkRegistryDir(dir);
  if (problems.length > 0) throw new ManifestError(problems);
  const byId = new Map(manifests.map((m) => [m.id, m]));
  const migrations = new Map(manifests.map((m) => [m.id, readMigrations(dir, m)]));
  return {
    dir,
    list: () => [...byId.values()],
    get: (id) => byId.get(id),
    search: (q) => searchRegistry(manifests, q),
    migrations: (id) => migrations.get(id) ?? [],
    guide: (id) => {
      const m = byId.get(id);
      return m ? readFileSync(join(dir, id, m.guideFile), 'utf8') : undefined;
    },
  };
}
