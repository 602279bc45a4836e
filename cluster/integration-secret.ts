// Pure: the Secret that holds one integration's credentials for one office (or one instance).
import type { V1Secret } from '@kubernetes/client-node';
import { type IntegrationManifest, secretKeys } from '../integrations/registry/manifest-schema.ts';
import { LABEL_INSTANCE, LABEL_INTEGRATION, LABEL_MANAGED_BY, LABEL_OFFICE, MANAGED_BY } from './labels.ts';

export function renderIntegrationSecret(args: {
  manifest: IntegrationManifest;
  officeId: string;
  namespace: string;
  secretName: string;
  instanceLabel?: string | undefined;
  data: Record<string, string>;
}): V1Secret {
  // Credential fields, and the Connect flow's tokens for an OAuth integration.
  const keys = secretKeys(args.manifest);
  const stringData: Record<string, string> = {};
  for (const key of keys) {
    const value = args.data[key];
    if (value !== undefined && value !== '') stringData[key] = value;
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: args.secretName,
      namespace: args.namespace,
      labels: {
        [LABEL_OFFICE]: args.officeId,
        [LABEL_INTEGRATION]: args.manifest.id,
        ...(args.instanceLabel ? { [LABEL_INSTANCE]: args.instanceLabel } : {}),
        [LABEL_MANAGED_BY]: MANAGED_BY,
      },
    },
    stringData,
  };
}
