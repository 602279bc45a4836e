// Pure: search over the registry by id, name, alias and capability, best matches first.
import type { IntegrationManifest } from './manifest-schema.ts';

type Searchable = Pick<IntegrationManifest, 'id' | 'name' | 'aliases' | 'capabilities' | 'description'>;

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** Score of one integration for a query: exact id/name/alias beats prefix beats substring. */
function score(m: Searchable, q: string): number {
  const names = [m.id, m.name, ...m.aliases].map(norm);
  if (names.includes(q)) return 100;
  if (names.some((n) => n.startsWith(q))) return 60;
  // Substrings only from three characters: `tg` must not find chat*gpt*.
  const long = q.length >= 3;
  if (long && names.some((n) => n.includes(q))) return 40;
  if (m.capabilities.map(norm).some((c) => c === q || c.startsWith(q))) return 30;
  if (long && norm(m.description).includes(q)) return 10;
  return 0;
}

export function searchRegistry<T extends Searchable>(all: readonly T[], query: string): T[] {
  const q = norm(query);
  if (!q) return [...all];
  return all
    .map((m) => ({ m, s: score(m, q) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.m.id.localeCompare(b.m.id))
    .map((x) => x.m);
}
