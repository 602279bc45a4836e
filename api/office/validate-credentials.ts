// Pure: checks posted credential data against an integration's definition and names what is wrong.
import { INSTANCE_LABEL, type IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import { DNS_LABEL } from '../../integrations/registry/names.ts';
import { isReservedEnvKey } from '../../integrations/registry/reserved-keys.ts';
import { k8sSecretName } from '../../integrations/registry/secret-name.ts';
import type { FieldError } from '../shared/problem.ts';

export type CredentialCheck =
  | { ok: true; secretName: string; instanceLabel: string | undefined; values: Record<string, string> }
  | { ok: false; errors: FieldError[] };

const at = (key: string) => `body.data.${key}`;

/** Keys the definition does not have, and keys nobody may set. */
function foreignKeys(manifest: IntegrationManifest, data: Record<string, string>): FieldError[] {
  const known = new Set(manifest.requiredSecrets.map((f) => f.key));
  return Object.keys(data).flatMap((key) => {
    if (isReservedEnvKey(key))
      return [{ location: at(key), message: `${key} is a reserved key and cannot be set` }];
    if (!known.has(key))
      return [{ location: at(key), message: `${manifest.id} has no credential field ${key}` }];
    return [];
  });
}

function missingRequired(manifest: IntegrationManifest, data: Record<string, string>): FieldError[] {
  return manifest.requiredSecrets
    .filter((f) => f.required && !data[f.key]?.trim())
    .map((f) => ({ location: at(f.key), message: `${f.label} (${f.key}) is required` }));
}

function badInstanceLabel(label: string | undefined): FieldError[] {
  if (!label || DNS_LABEL.test(label)) return [];
  return [
    {
      location: at(INSTANCE_LABEL),
      message: 'the instance name must be lowercase letters, digits and hyphens',
    },
  ];
}

export function checkCredentials(
  manifest: IntegrationManifest,
  officeId: string,
  body: { secretName?: string | undefined; data: Record<string, string> },
): CredentialCheck {
  const instanceLabel = manifest.multiInstance ? body.data[INSTANCE_LABEL] || undefined : undefined;
  const errors = [
    ...foreignKeys(manifest, body.data),
    ...missingRequired(manifest, body.data),
    ...badInstanceLabel(instanceLabel),
  ];
  if (errors.length > 0) return { ok: false, errors };
  const secretName = k8sSecretName(manifest.id, officeId, instanceLabel);
  if (body.secretName !== undefined && body.secretName !== secretName) {
    const message = `must be ${secretName} (or omitted) for this integration and office`;
    return { ok: false, errors: [{ location: 'body.secretName', message }] };
  }
  const values = Object.fromEntries(
    Object.entries(body.data).filter(([k, v]) => k !== INSTANCE_LABEL && v !== ''),
  );
  return { ok: true, secretName, instanceLabel, values };
}
