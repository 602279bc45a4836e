// An integration registry of test manifests in a temporary folder, for controllers and servers
// under test (COLONY_INTEGRATIONS_DIR, loadRegistry). Each manifest gets the fields every one needs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface TestRegistry {
  dir: string;
  /** Adds one integration: its manifest fields beyond the required ones, and files beside it. */
  add(id: string, manifest: Record<string, unknown>, files?: Record<string, string>): TestRegistry;
  dispose(): void;
}

/** A credential field as the wizard shows it: required, a password unless told otherwise. */
export const secretField = (key: string, type: 'password' | 'text' = 'password') => ({
  key,
  label: key,
  type,
  required: true,
});

export function testRegistry(prefix: string): TestRegistry {
  const dir = mkdtempSync(join(tmpdir(), `colony-${prefix}-`));
  const registry: TestRegistry = {
    dir,
    add(id, manifest, files = {}) {
      mkdirSync(join(dir, id));
      const base = { id, name: id, description: `${id} test`, icon: id, version: '2.0.0' };
      const kind = { category: 'services', wizard: 'guide' };
      writeFileSync(join(dir, id, 'manifest.yaml'), stringify({ ...base, ...kind, ...manifest }));
      writeFileSync(join(dir, id, 'guide.md'), `# ${id}\n`);
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, id, name), text);
      return registry;
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
  return registry;
}
