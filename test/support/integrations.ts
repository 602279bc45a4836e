// An office's integration as the controller tests set one up: its Secret (rendered from the
// registry's manifest, as the API saves it) and its Integration, through the office-manager client.
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import { kubeConfig } from './kube.ts';

/** Saves the Secret `<id>-<office>` with `data` and the Integration `<id>`; returns the Secret's name. */
export async function configureIntegration(
  registry: IntegrationRegistry,
  o: { namespace: string; office: string; id: string; data: Record<string, string> },
): Promise<string> {
  const manifest = registry.get(o.id);
  if (!manifest) throw new Error(`${o.id} is missing from the registry`);
  const cluster = new OfficeCluster(kubeConfig());
  const secretName = `${o.id}-${o.office}`;
  const { namespace, office: officeId, data } = o;
  await cluster.saveSecret(renderIntegrationSecret({ manifest, officeId, namespace, secretName, data }));
  await cluster.saveIntegration(namespace, o.id, { integrationId: o.id, officeId, secretName });
  return secretName;
}
