// Pure: how integrations compose. At load, references must resolve and dependsOn must not loop; per
// office, saving and enabling are checked against what is already configured or enabled.
import type { IntegrationManifest } from './manifest-schema.ts';

type Composable = Pick<
  IntegrationManifest,
  'id' | 'name' | 'provides' | 'capabilities' | 'dependsOn' | 'conflicts' | 'composedWith' | 'officeLevel'
>;

export interface RegistryProblem {
  id: string;
  field: string;
  message: string;
}

/** What a reference names: the integration with that id, or every integration providing it. */
export function providersOf(all: readonly Composable[], ref: string): Composable[] {
  return all.filter((m) => m.id === ref || m.provides.includes(ref));
}

/** Does a set of integration ids satisfy a reference (by id or by a capability one of them provides)? */
export function satisfies(all: readonly Composable[], present: readonly string[], ref: string): boolean {
  return providersOf(all, ref).some((m) => present.includes(m.id));
}

function danglingRefs(all: readonly Composable[]): RegistryProblem[] {
  return all.flatMap((m) =>
    (['dependsOn', 'conflicts', 'composedWith'] as const).flatMap((field) =>
      m[field].flatMap((ref, i) =>
        providersOf(all, ref).length > 0
          ? []
          : [
              {
                id: m.id,
                field: `${field}[${i}]`,
                message: `${ref} is neither an integration id nor a capability any integration provides`,
              },
            ],
      ),
    ),
  );
}

/** dependsOn cycles, following every provider of a capability (a cycle through any one is refused). */
function cycles(all: readonly Composable[]): RegistryProblem[] {
  const edges = new Map(
    all.map((m) => [m.id, m.dependsOn.flatMap((r) => providersOf(all, r).map((p) => p.id))]),
  );
  const state = new Map<string, 'visiting' | 'done'>();
  const problems: RegistryProblem[] = [];
  const visit = (id: string, trail: string[]): void => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      const loop = [...trail.slice(trail.indexOf(id)), id];
      problems.push({
        id: trail[0] ?? id,
        field: 'dependsOn',
        message: `dependency cycle: ${loop.join(' -> ')}`,
      });
      return;
    }
    state.set(id, 'visiting');
    for (const next of edges.get(id) ?? []) visit(next, [...trail, id]);
    state.set(id, 'done');
  };
  for (const m of all) visit(m.id, []);
  return problems;
}

export function registryProblems(all: readonly Composable[]): RegistryProblem[] {
  return [...danglingRefs(all), ...cycles(all)];
}

export interface CompositionVerdict {
  ok: boolean;
  /** References not satisfied, each with the integrations that would satisfy it. */
  missing: { ref: string; satisfiedBy: string[] }[];
  /** Integrations present that this one cannot coexist with (either side may declare it). */
  conflicting: { id: string; because: string }[];
}

/**
 * Checks adding `m` beside `present` (ids configured in the office, or enabled for one agent).
 * A conflict is declared by either side, by id or by a capability the other provides.
 */
export function checkComposition(
  all: readonly Composable[],
  m: Composable,
  present: readonly string[],
): CompositionVerdict {
  const others = present.filter((id) => id !== m.id);
  const missing = m.dependsOn
    .filter((ref) => !satisfies(all, others, ref))
    .map((ref) => ({ ref, satisfiedBy: providersOf(all, ref).map((p) => p.id) }));
  const conflicting: CompositionVerdict['conflicting'] = [];
  for (const id of others) {
    const other = all.find((o) => o.id === id);
    if (!other) continue;
    const mine = m.conflicts.find((ref) => providersOf(all, ref).some((p) => p.id === id));
    const theirs = other.conflicts.find((ref) => providersOf(all, ref).some((p) => p.id === m.id));
    if (mine) conflicting.push({ id, because: `${m.id} conflicts with ${mine}` });
    else if (theirs) conflicting.push({ id, because: `${id} conflicts with ${theirs}` });
  }
  return { ok: missing.length === 0 && conflicting.length === 0, missing, conflicting };
}

/** Integrations present that depend on `m` and would lose their only provider if it went away. */
export function dependentsOf(
  all: readonly Composable[],
  m: Composable,
  present: readonly string[],
): string[] {
  const rest = present.filter((id) => id !== m.id);
  return rest.filter((id) => {
    const other = all.find((o) => o.id === id);
    return (
      other?.dependsOn.some((ref) => satisfies(all, present, ref) && !satisfies(all, rest, ref)) ?? false
    );
  });
}

export interface Recommendation {
  integrationId: string;
  name: string;
  /** The configured integrations that recommend it. */
  recommendedBy: string[];
}

/** composedWith entries of configured integrations that are not configured yet. */
export function recommendations(all: readonly Composable[], configured: readonly string[]): Recommendation[] {
  const out = new Map<string, Recommendation>();
  for (const id of configured) {
    const m = all.find((o) => o.id === id);
    for (const ref of m?.composedWith ?? []) {
      if (satisfies(all, configured, ref)) continue;
      for (const p of providersOf(all, ref)) {
        const rec = out.get(p.id) ?? { integrationId: p.id, name: p.name, recommendedBy: [] };
        if (!rec.recommendedBy.includes(id)) rec.recommendedBy.push(id);
        out.set(p.id, rec);
      }
    }
  }
  return [...out.values()].sort((a, b) => a.integrationId.localeCompare(b.integrationId));
}
