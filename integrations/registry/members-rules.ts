// Pure: the members layer's rules for enabling an integration for one agent. Each refusal names
// the rule it breaks, so the API's 409 and the controller's condition say the same thing.
import type { IntegrationManifest } from './manifest-schema.ts';

export interface MemberViolation {
  rule: 'requiredRoles' | 'maxAgents' | 'agentConfig';
  message: string;
}

export interface MemberCandidate {
  agentName: string;
  /** The agent's roles; undefined when the agent has no workload yet. */
  roles: string[] | undefined;
  config: Record<string, string>;
  /** Other agents that have this integration (or instance) enabled and count first. */
  othersEnabled: string[];
}

export function parseRoles(annotation: string | undefined): string[] {
  return (annotation ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
}

function configViolations(m: IntegrationManifest, config: Record<string, string>): MemberViolation[] {
  const allowed = new Map((m.members?.agentConfig ?? []).map((c) => [c.key, c]));
  return Object.entries(config).flatMap(([key, value]): MemberViolation[] => {
    const rule = allowed.get(key);
    if (!rule) return [{ rule: 'agentConfig', message: `${key} is not a per-agent setting of ${m.id}` }];
    if (rule.pattern && !new RegExp(rule.pattern, 'u').test(value))
      return [{ rule: 'agentConfig', message: `${key} must match ${rule.pattern}` }];
    return [];
  });
}

export function memberViolations(m: IntegrationManifest, c: MemberCandidate): MemberViolation[] {
  const out = configViolations(m, c.config);
  const members = m.members;
  if (!members) return out;
  const missing = members.requiredRoles.filter((r) => !c.roles?.includes(r));
  if (missing.length > 0) {
    const held =
      c.roles === undefined
        ? 'has no workload yet'
        : `holds ${c.roles.length ? c.roles.join(', ') : 'no roles'}`;
    out.push({
      rule: 'requiredRoles',
      message: `${m.id} needs agents with the role ${missing.join(', ')}; ${c.agentName} ${held}`,
    });
  }
  if (members.maxAgents !== undefined && c.othersEnabled.length >= members.maxAgents) {
    out.push({
      rule: 'maxAgents',
      message: `${m.id} may be enabled for at most ${members.maxAgents} agent(s); already enabled for ${c.othersEnabled.join(', ')}`,
    });
  }
  return out;
}

/** Plain env values for the agent: each agentConfig setting, from the binding or its default. */
export function agentConfigValues(
  m: IntegrationManifest,
  config: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of m.members?.agentConfig ?? []) {
    const value = config?.[c.key] ?? c.default;
    if (value !== undefined) out[c.key] = value;
  }
  return out;
}
