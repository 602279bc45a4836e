// A kubeconfig that authenticates as a ServiceAccount: a short-lived token from the TokenRequest API
// and the admin kubeconfig's server and CA. Processes run with it get exactly the SA's RBAC.
import { readFileSync, writeFileSync } from 'node:fs';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export async function serviceAccountKubeconfig(
  admin: KubeConfig,
  namespace: string,
  serviceAccount: string,
  file: string,
): Promise<string> {
  const core = admin.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { expirationSeconds: 3600, audiences: [] } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${serviceAccount} returned no token`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig has no current cluster');
  const ca = cluster.caData ?? (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined);
  const user = `system:serviceaccount:${namespace}:${serviceAccount}`;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'e2e',
        cluster: {
          server: cluster.server,
          ...(ca ? { 'certificate-authority-data': ca } : {}),
          ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
        },
      },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'e2e', context: { cluster: 'e2e', user, namespace } }],
    'current-context': 'e2e',
  };
  writeFileSync(file, stringify(config), { mode: 0o600 });
  return file;
}
