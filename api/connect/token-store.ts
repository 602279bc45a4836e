// Puts a Connect flow's tokens where they belong: only in the integration's Secret (with the
// Integration resource beside it, as a credential save does); the database keeps only the expiry.

import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import { integrationResourceName } from '../../cluster/registration.ts';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import { k8sSecretName } from '../../integrations/registry/secret-name.ts';
import type { OfficeCluster } from '../office/office-cluster.ts';
import type { ConnectionKey } from './connect-repo.ts';
import type { Tokens } from './provider.ts';

export interface TokenTarget extends ConnectionKey {
  manifest: IntegrationManifest;
  namespace: string;
}

export function tokenSecretName(t: ConnectionKey): string {
  return k8sSecretName(t.integrationId, t.officeId, t.instanceLabel);
}

/** Writes both tokens into the Secret (server-side apply, so a refresh replaces them in place). */
export async function writeTokens(cluster: OfficeCluster, t: TokenTarget, tokens: Tokens): Promise<string> {
  const oauth = t.manifest.oauth;
  if (!oauth) throw new Error(`${t.manifest.id} has no oauth section`);
  const secretName = tokenSecretName(t);
  const data: Record<string, string> = { [oauth.accessTokenKey]: tokens.accessToken };
  if (tokens.refreshToken) data[oauth.refreshTokenKey] = tokens.refreshToken;
  await cluster.saveSecret(
    renderIntegrationSecret({
      manifest: t.manifest,
      officeId: t.officeId,
      namespace: t.namespace,
      secretName,
      instanceLabel: t.instanceLabel,
      data,
    }),
  );
  return secretName;
}

/** The first connection also creates the Integration resource the controller registers. */
export async function saveConnectedIntegration(
  cluster: OfficeCluster,
  t: TokenTarget,
  secretName: string,
): Promise<void> {
  await cluster.saveIntegration(t.namespace, integrationResourceName(t.manifest.id, t.instanceLabel), {
    integrationId: t.manifest.id,
    officeId: t.officeId,
    ...(t.instanceLabel ? { instanceLabel: t.instanceLabel } : {}),
    secretName,
  });
}
