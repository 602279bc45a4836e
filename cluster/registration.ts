// Pure: the backend registration entry of spec 2.5 for an integration configured in an office.

import type { IntegrationManifest } from '../integrations/registry/manifest-schema.ts';
import type { Registration } from './crds/integration-types.ts';

export function registrationEntry(
  manifest: Pick<IntegrationManifest, 'name' | 'id' | 'capabilities' | 'agentEnvVars'>,
  secretName: string,
  status: Registration['Status'] = 'pending',
): Registration {
  return {
    Name: manifest.name,
    ID: manifest.id,
    Status: status,
    SecretName: secretName,
    Capabilities: [...manifest.capabilities],
    AgentEnvVars: [...manifest.agentEnvVars],
  };
}

/** Integration resources are named after the integration, and its instance when it has several. */
export function integrationResourceName(integrationId: string, instanceLabel?: string): string {
  return instanceLabel ? `${integrationId}-${instanceLabel}` : integrationId;
}

/** Field by field: a registration read back from the API server need not keep our key order. */
export function sameRegistration(a: Registration | undefined, b: Registration): boolean {
  return (
    !!a &&
    a.Name === b.Name &&
    a.ID === b.ID &&
    a.Status === b.Status &&
    a.SecretName === b.SecretName &&
    a.Capabilities.join(',') === b.Capabilities.join(',') &&
    a.AgentEnvVars.join(',') === b.AgentEnvVars.join(',')
  );
}
