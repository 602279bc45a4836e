// Refusals of the office-manager API that depend on what else the office has: composability
// (dependsOn, conflicts, and who depends on what) and the members layer's rules.

import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import { integrationResourceName } from '../../cluster/registration.ts';
import {
  bindingOrder,
  describeConflict,
  type EnabledInstance,
  surfaceConflicts,
} from '../../integrations/registry/agent-surface.ts';
import { checkComposition, dependentsOf } from '../../integrations/registry/composition.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import { type MemberCandidate, memberViolations } from '../../integrations/registry/members-rules.ts';
import { ProblemError } from '../shared/problem.ts';

const ids = (list: { spec: { integrationId: string } }[]) => [
  ...new Set(list.map((x) => x.spec.integrationId)),
];

/** What is configured in the office, and what is enabled for one agent (office-level services count for every agent). */
export function officeState(
  registry: IntegrationRegistry,
  integrations: IntegrationObject[],
  bindings: AgentBindingObject[],
  agentName?: string,
) {
  const configured = ids(integrations);
  const officeLevel = configured.filter((id) => registry.get(id)?.officeLevel);
  const enabled = ids(bindings.filter((b) => b.spec.enabled && b.spec.agentName === agentName));
  return { configured, enabledForAgent: [...new Set([...enabled, ...officeLevel])] };
}

function refuse(
  verb: string,
  m: IntegrationManifest,
  where: string,
  verdict: ReturnType<typeof checkComposition>,
): never {
  const parts = [
    ...verdict.missing.map((x) => `needs ${x.ref} (${x.satisfiedBy.join(' or ')})`),
    ...verdict.conflicting.map((x) => `conflicts with ${x.id}: ${x.because}`),
  ];
  throw new ProblemError('composition_conflict', `Cannot ${verb} ${m.id} ${where}: ${parts.join('; ')}.`, {
    extensions: { missing: verdict.missing, conflicting: verdict.conflicting },
  });
}

/** Saving credentials: dependencies configured in the office, no conflicting integration configured. */
export function guardSave(registry: IntegrationRegistry, m: IntegrationManifest, configured: string[]): void {
  const verdict = checkComposition(registry.list(), m, configured);
  if (!verdict.ok) refuse('configure', m, 'in this office', verdict);
}

/** Enabling for an agent: dependencies enabled for the same agent, nothing conflicting enabled for it. */
export function guardEnable(
  registry: IntegrationRegistry,
  m: IntegrationManifest,
  enabledForAgent: string[],
  agentName: string,
): void {
  const verdict = checkComposition(registry.list(), m, enabledForAgent);
  if (!verdict.ok) refuse('enable', m, `for ${agentName}`, verdict);
}

/** Disabling or deleting: refused while another integration depends on this one as its only provider. */
export function guardRemove(
  registry: IntegrationRegistry,
  m: IntegrationManifest,
  present: string[],
  where: string,
): void {
  const requiredBy = dependentsOf(registry.list(), m, present);
  if (requiredBy.length === 0) return;
  throw new ProblemError(
    'composition_conflict',
    `${requiredBy.join(', ')} ${requiredBy.length > 1 ? 'depend' : 'depends'} on ${m.id} ${where}; remove ${requiredBy.length > 1 ? 'them' : 'it'} first.`,
    {
      extensions: { missing: [], conflicting: [], requiredBy },
    },
  );
}

export function guardMembers(m: IntegrationManifest, candidate: MemberCandidate): void {
  const violations = memberViolations(m, candidate);
  if (violations.length === 0) return;
  throw new ProblemError(
    'member_rule_violated',
    violations.map((v) => `${v.rule}: ${v.message}`).join('; '),
    {
      extensions: { violations },
    },
  );
}

/**
 * Enabling for an agent: nothing it injects (env names, file paths) may be injected already by
 * another enabled integration. Instances of one integration get names of their own and pass.
 */
export function guardSurface(
  registry: IntegrationRegistry,
  candidate: { manifest: IntegrationManifest; instanceLabel: string | undefined; secretName: string },
  agentName: string,
  integrations: IntegrationObject[],
  bindings: AgentBindingObject[],
): void {
  const label = (b: AgentBindingObject) =>
    b.spec.instanceLabel ??
    integrations.find((i) => i.spec.secretName === b.spec.secretName)?.spec.instanceLabel;
  const mine = integrationResourceName(candidate.manifest.id, candidate.instanceLabel);
  const existing = bindings.find(
    (b) => b.spec.agentName === agentName && b.spec.secretName === candidate.secretName,
  );
  const enabled: EnabledInstance[] = bindings.flatMap((b) => {
    const m = registry.get(b.spec.integrationId);
    if (!m || !b.spec.enabled || b.spec.agentName !== agentName || b.spec.secretName === candidate.secretName)
      return [];
    const instanceLabel = label(b);
    return [
      {
        manifest: m,
        instanceLabel,
        resourceName: integrationResourceName(m.id, instanceLabel),
        order: bindingOrder(b),
      },
    ];
  });
  enabled.push({ ...candidate, resourceName: mine, order: bindingOrder(existing) });
  const conflicts = surfaceConflicts(enabled).filter((c) => c.refused === mine || c.holder === mine);
  if (conflicts.length === 0) return;
  throw new ProblemError(
    'injection_conflict',
    `Cannot enable ${mine} for ${agentName}: ${conflicts.map(describeConflict).join('; ')}.`,
    { extensions: { conflicts } },
  );
}
