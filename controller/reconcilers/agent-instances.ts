// Pure: the names each enabled binding of one agent occupies (see agent-surface.ts). Instances of
// one integration get their own env names and file paths; a binding that would take a name another
// one already holds is refused here, so one collision never blocks the agent's other changes.
import type { AgentBindingObject } from '../../cluster/objects.ts';
import {
  agentSurfaces,
  bindingOrder,
  describeConflict,
  type EnabledInstance,
  surfaceConflicts,
} from '../../integrations/registry/agent-surface.ts';
import type { Outcome } from './agent-outcome.ts';

type Evaluated = { b: AgentBindingObject; outcome: Outcome };

export function nameInstances<T extends Evaluated>(evaluated: readonly T[]): T[] {
  const enabled: EnabledInstance[] = evaluated.flatMap(({ b, outcome }) =>
    outcome.ok === true
      ? [
          {
            manifest: outcome.manifest,
            resourceName: outcome.layers.resourceName,
            instanceLabel: outcome.integration.spec.instanceLabel,
            order: bindingOrder(b),
          },
        ]
      : [],
  );
  const conflicts = surfaceConflicts(enabled);
  const surfaces = agentSurfaces(enabled);
  return evaluated.map((e) => {
    const o = e.outcome;
    if (o.ok !== true) return e;
    const mine = conflicts.filter((c) => c.refused === o.layers.resourceName);
    if (mine.length > 0) {
      const message = `${mine.map(describeConflict).join('; ')}; disable one of them for ${e.b.spec.agentName}`;
      return { ...e, outcome: { ok: false, reason: 'InjectionConflict', message } };
    }
    const s = surfaces.get(o.layers.resourceName);
    if (!s) return e;
    return {
      ...e,
      outcome: {
        ...o,
        injection: { ...o.injection, envNames: s.env },
        layers: { ...o.layers, filePaths: s.files },
      },
    };
  });
}
