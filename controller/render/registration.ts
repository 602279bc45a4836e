// Pure: the backend registration entry of spec 2.5 for an integration configured in an office.

import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import type { Registration } from '../api/integration-types.ts';

export function registrationEntry(
  manifest: IntegrationManifest,
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
