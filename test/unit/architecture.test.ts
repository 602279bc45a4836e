// Keeps docs/architecture.md true: every relative import in the tree must follow its allowed-imports
// table, every folder with source code must have a row, and no shipped module imports itself in a circle.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

interface Row {
  folder: string;
  allowed: string[] | 'anything';
}

function parseTable(markdown: string): Row[] {
  const body = markdown.split('<!-- allowed-imports:start -->')[1]?.split('<!-- allowed-imports:end -->')[0];
  if (!body) throw new Error('docs/architecture.md has no allowed-imports table');
  return body
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [folderCell = '', allowedCell = ''] = line.split('|').slice(1);
      const folder = folderCell.trim().replaceAll('`', '');
      const allowed = [...allowedCell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
      return { folder, allowed: allowedCell.includes('(anything)') ? 'anything' : allowed };
    });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('node_modules'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

const importSpecifier = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

function relativeImports(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(importSpecifier)].map((m) =>
    path.normalize(path.join(path.dirname(file), m[1] ?? '')),
  );
}

/** The most specific row whose folder contains the file. */
function rowOf(rows: Row[], file: string): Row | undefined {
  return rows.filter((r) => file.startsWith(r.folder)).sort((a, b) => b.folder.length - a.folder.length)[0];
}

/** Every import that breaks the table, as `file -> target`. */
function crossings(rows: Row[], imports: Array<[string, string]>): string[] {
  return imports
    .filter(([file, target]) => {
      const row = rowOf(rows, file);
      if (!row) return true;
      if (row.allowed === 'anything' || target.startsWith(row.folder)) return false;
      return !row.allowed.some((folder) => target.startsWith(folder));
    })
    .map(([file, target]) => `${file} -> ${target}`);
}

const rows = parseTable(doc);
const topFolders = readdirSync(root, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
  .map((e) => `${e.name}/`)
  .filter((dir) => sourceFiles(dir).length > 0);

/** The files from which an import chain leads back to themselves (type-only imports included). */
function filesOnCycles(graph: Map<string, string[]>): string[] {
  const reaches = (from: string, goal: string): boolean => {
    const seen = new Set<string>();
    const todo = [...(graph.get(from) ?? [])];
    for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
      if (f === goal) return true;
      if (seen.has(f)) continue;
      seen.add(f);
      todo.push(...(graph.get(f) ?? []));
    }
    return false;
  };
  return [...graph.keys()].filter((file) => reaches(file, file)).sort();
}

describe('docs/architecture.md', () => {
  it('has a row for every top-level folder that holds TypeScript, and no row for a missing folder', () => {
    const tableTops = new Set(rows.map((r) => `${r.folder.split('/')[0]}/`));
    expect([...tableTops].sort()).toEqual([...topFolders].sort());
  });

  it('allows every relative import in the tree', () => {
    const imports = topFolders.flatMap((dir) =>
      sourceFiles(dir).flatMap((file) => relativeImports(file).map((t): [string, string] => [file, t])),
    );
    expect(imports.length).toBeGreaterThan(1000);
    expect(crossings(rows, imports)).toEqual([]);
  });

  it('has no import cycles outside test/, type-only imports included', () => {
    const shipped = topFolders.filter((dir) => dir !== 'test/').flatMap(sourceFiles);
    const graph = new Map(shipped.map((file) => [file, relativeImports(file)]));
    expect(filesOnCycles(graph)).toEqual([]);
    expect(
      filesOnCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts']],
          ['c.ts', ['a.ts']],
        ]),
      ),
    ).toEqual(['a.ts', 'b.ts']);
  });

  it('keeps the checkout domain below both checkout protocols', () => {
    const upward = sourceFiles('api/commerce/').flatMap((file) =>
      relativeImports(file)
        .filter((target) => target.startsWith('api/acp/') || target.startsWith('api/ucp/'))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('gives API surfaces their services as plugin options: only the composition root reads app.colony', () => {
    const compositionRoot = new Set(['api/server.ts', 'api/app-services.ts']);
    const readers = sourceFiles('api/')
      .filter((file) => !compositionRoot.has(file))
      .filter((file) =>
        /\b(?:app|fastify|instance|scope|server)\.colony\b/.test(readFileSync(path.join(root, file), 'utf8')),
      );
    expect(readers).toEqual([]);
  });

  it('reports an import from the API into the operator, and none from main/ into either', () => {
    expect(
      crossings(rows, [
        ['api/office/plugin.ts', 'controller/render/labels.ts'],
        ['controller/reconcilers/agent.ts', 'api/office/office-cluster.ts'],
        ['cluster/labels.ts', 'controller/render/labels.ts'],
        ['main/api.ts', 'controller/run-controller.ts'],
        ['main/api.ts', 'api/server.ts'],
      ]),
    ).toEqual([
      'api/office/plugin.ts -> controller/render/labels.ts',
      'controller/reconcilers/agent.ts -> api/office/office-cluster.ts',
      'cluster/labels.ts -> controller/render/labels.ts',
    ]);
  });
});
