// Pure: a registry entry as the setup wizard needs it: spec 2.5's fields, credential fields with
// their defaults, the guide's address, and which layers the integration uses.

import { LAYER_NAMES } from '../../integrations/registry/layers-schema.ts';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';

export function presentDefinition(m: IntegrationManifest, baseUrl: string) {
  return {
    id: m.id,
    name: m.name,
    description: m.description,
    icon: m.icon,
    category: m.category,
    aliases: m.aliases,
    verified: m.verified,
    capabilities: m.capabilities,
    channels: m.channels,
    wizard: m.wizard,
    guideFile: m.guideFile,
    guideUrl: `${baseUrl}/api/v1/integrations/${m.id}/guide`,
    requiredSecrets: m.requiredSecrets.map((f) => ({
      ...f,
      hint: f.hint ?? null,
      helpUrl: f.helpUrl ?? null,
    })),
    agentEnvVars: m.agentEnvVars,
    officeLevel: m.officeLevel,
    multiInstance: m.multiInstance,
    k8sSecretName: m.multiInstance ? `${m.id}-<instanceLabel>-<officeId>` : `${m.id}-<officeId>`,
    version: m.version,
    dependsOn: m.dependsOn,
    provides: m.provides,
    conflicts: m.conflicts,
    composedWith: m.composedWith,
    layers: LAYER_NAMES.filter((l) => m[l] !== undefined),
    oauth: m.oauth ? { scopes: m.oauth.scopes } : null,
  };
}
