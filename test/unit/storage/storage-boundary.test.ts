// The storage engine stays one layer at the bottom: nothing under api/storage imports the domains
// above it, and repositories beside their domains reach down only to the engine.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../../api/app-storage.ts';

const root = resolve(import.meta.dirname, '../../..');
const engine = join(root, 'api', 'storage');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

// Statements that open a line (so commented-out code does not count), and import() anywhere.
const importForms = [
  /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
];

/** Every module a file names: static imports, `export … from`, `import()` and type-only imports alike. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return importForms.flatMap((form) => [...text.matchAll(form)].map((m) => m[1] ?? ''));
}

const isRelative = (spec: string) => spec.startsWith('./') || spec.startsWith('../');
const inside = (dir: string, file: string) => !relative(dir, file).startsWith('..');
const shown = (file: string) => relative(root, file).split(sep).join('/');

/** The relative imports of `files` that land outside what `allowed` accepts, as "from -> to". */
function crossings(files: string[], allowed: (from: string, to: string) => boolean): string[] {
  return files.flatMap((from) =>
    importsOf(from)
      .filter(isRelative)
      .map((spec) => resolve(dirname(from), spec))
      .filter((to) => !allowed(from, to))
      .map((to) => `${shown(from)} -> ${shown(to)}`),
  );
}

describe('api/storage', () => {
  it('imports nothing outside itself but packages', () => {
    const files = sourceFiles(engine);
    expect(files.length).toBeGreaterThan(5);
    expect(crossings(files, (_from, to) => inside(engine, to))).toEqual([]);
  });

  it('reads every import form, multi-line and type-only ones included', () => {
    const files = sourceFiles(engine);
    const named = files.flatMap(importsOf);
    expect(named).toContain('./sql-driver.ts');
    expect(named).toContain('pg');
    expect(named).toContain('node:sqlite');
    expect(files.flatMap(importsOf).length).toBeGreaterThanOrEqual(
      files.map((f) => readFileSync(f, 'utf8').match(/^import\b/gm)?.length ?? 0).reduce((a, b) => a + b, 0),
    );
  });
});

describe('repositories', () => {
  // A repository may use the engine, its own folder (the model it stores) and other repositories.
  const repositories = sourceFiles(join(root, 'api')).filter(
    (f) => !inside(engine, f) && /-repos?\.ts$/.test(f),
  );

  it('reach down only to the engine, their own folder and other repositories', () => {
    expect(repositories.length).toBeGreaterThan(10);
    const allowed = (from: string, to: string) =>
      inside(engine, to) || inside(dirname(from), to) || /-repos?\.ts$/.test(to);
    expect(crossings(repositories, allowed)).toEqual([]);
  });
});

describe('migrations', () => {
  it('run in the order existing databases recorded them, each id once', () => {
    const ids = migrations.map((m) => m.id);
    expect(ids).toEqual([
      1, 300, 301, 100, 101, 200, 201, 202, 203, 400, 401, 204, 102, 103, 205, 106, 104, 107, 105,
    ]);
  });
});
