// k8sSecretName(colonyId[, instanceLabel]): `<id>-<colonyId>` or `<id>-<instanceLabel>-<colonyId>`.

import { DNS_LABEL } from './names.ts';

export class SecretNameError extends Error {
  override readonly name = 'SecretNameError';
}

export function k8sSecretName(integrationId: string, colonyId: string, instanceLabel?: string): string {
  for (const [what, value] of [
    ['colonyId', colonyId],
    ['instanceLabel', instanceLabel],
  ] as const) {
    if (value !== undefined && !DNS_LABEL.test(value)) {
      throw new SecretNameError(`${what} "${value}" must be lowercase letters, digits and hyphens`);
    }
  }
  const name = instanceLabel
    ? `${integrationId}-${instanceLabel}-${colonyId}`
    : `${integrationId}-${colonyId}`;
  if (name.length > 253) throw new SecretNameError(`secret name ${name} is longer than 253 characters`);
  return name;
}
