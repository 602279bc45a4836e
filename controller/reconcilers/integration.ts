// Reconciles one Integration (namespace + name): its registration status, and for a per-office
// service the Deployment, Service and PVC, started the first time an agent enables it and torn down
// (PVC kept) when none does.
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { IntegrationObject } from '../../api/office/office-cluster.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { Registration } from '../api/integration-types.ts';
import { ANNOTATION_SPEC_HASH } from '../render/labels.ts';
import { renderOfficeService } from '../render/office-service.ts';
import { registrationEntry, sameRegistration } from '../render/registration.ts';
import type { Applier } from '../runtime/apply.ts';
import { type NewCondition, sameConditions, setCondition } from '../runtime/conditions.ts';
import type { StatusWriter } from '../runtime/status-writer.ts';
import { bindingsOfSecret, type ClusterView } from './cluster-view.ts';

export interface IntegrationDeps {
  view: ClusterView;
  registry: IntegrationRegistry;
  applier: Applier;
  status: StatusWriter;
  kc: KubeConfig;
  now: () => Date;
}

const ignoreNotFound = (err: unknown) => {
  if ((err as { code?: number }).code !== 404) throw err;
};

/** Deletes the service's Deployment and Service; the PVC stays so its data survives a re-enable. */
async function teardown(deps: IntegrationDeps, ns: string, name: string): Promise<boolean> {
  const apps = deps.kc.makeApiClient(AppsV1Api);
  const core = deps.kc.makeApiClient(CoreV1Api);
  const key = `${ns}/${name}`;
  if (!deps.view.serviceDeployments.get(key) && !deps.view.services.get(key)) return false;
  await apps.deleteNamespacedDeployment({ name, namespace: ns }).catch(ignoreNotFound);
  await core.deleteNamespacedService({ name, namespace: ns }).catch(ignoreNotFound);
  return true;
}

function decide(deps: IntegrationDeps, i: IntegrationObject) {
  const ns = i.metadata?.namespace ?? '';
  const manifest = deps.registry.get(i.spec.integrationId);
  const secret = deps.view.secrets.get(`${ns}/${i.spec.secretName}`);
  const enabledAgents = bindingsOfSecret(deps.view, ns, i.spec.secretName)
    .filter((b) => b.spec.enabled)
    .map((b) => b.spec.agentName)
    .sort();
  const missing =
    manifest?.requiredSecrets.filter(
      (f) => f.key !== 'INSTANCE_LABEL' && f.required && !secret?.data?.[f.key],
    ) ?? [];
  return { ns, manifest, secret, enabledAgents, missing };
}

type Decision = ReturnType<typeof decide>;

/** The registration state and the Available condition that explains it. */
function assess(i: IntegrationObject, d: Decision): { state: Registration['Status']; ready: NewCondition } {
  const observedGeneration = i.metadata?.generation ?? 0;
  const no = (reason: string, message: string) => ({
    state: 'error' as const,
    ready: { type: 'Available', status: 'False' as const, reason, message, observedGeneration },
  });
  if (!d.manifest) return no('UnknownIntegration', `no integration ${i.spec.integrationId} in the registry`);
  if (!d.secret) return no('SecretNotFound', `Secret ${i.spec.secretName} does not exist`);
  if (d.missing.length > 0) {
    return no(
      'SecretKeyMissing',
      `Secret ${i.spec.secretName} lacks ${d.missing.map((f) => f.key).join(', ')}`,
    );
  }
  const active = d.enabledAgents.length > 0;
  const message = active
    ? `enabled for ${d.enabledAgents.join(', ')}`
    : 'credentials stored; not enabled for any agent';
  return {
    state: active ? 'active' : 'configured',
    ready: {
      type: 'Available',
      status: 'True',
      reason: active ? 'Active' : 'Configured',
      message,
      observedGeneration,
    },
  };
}

/** Starts, updates or tears down the per-office service to match the state. */
async function syncOfficeService(
  deps: IntegrationDeps,
  i: IntegrationObject,
  d: Decision,
  state: Registration['Status'],
) {
  if (!d.manifest?.colonyContainer || state === 'error') return;
  const objects = renderOfficeService({
    manifest: d.manifest,
    officeId: i.spec.officeId,
    namespace: d.ns,
    secretName: i.spec.secretName,
    instanceLabel: i.spec.instanceLabel,
  });
  const serviceName = objects.deployment.metadata?.name ?? '';
  if (state !== 'active') {
    await teardown(deps, d.ns, serviceName);
    return;
  }
  const current = deps.view.serviceDeployments.get(`${d.ns}/${serviceName}`);
  const hash = (o: { metadata?: { annotations?: Record<string, string> } } | undefined) =>
    o?.metadata?.annotations?.[ANNOTATION_SPEC_HASH];
  if (hash(current) === hash(objects.deployment) && deps.view.services.get(`${d.ns}/${serviceName}`)) return;
  // The Deployment and Service belong to the Integration (deleted with it); the PVC does not.
  const owner = {
    apiVersion: i.apiVersion ?? '',
    kind: 'Integration',
    name: i.metadata?.name ?? '',
    uid: i.metadata?.uid ?? '',
    controller: true,
  };
  if (objects.pvc) await deps.applier.apply(objects.pvc);
  await deps.applier.apply({
    ...objects.deployment,
    metadata: { ...objects.deployment.metadata, ownerReferences: [owner] },
  });
  await deps.applier.apply({
    ...objects.service,
    metadata: { ...objects.service.metadata, ownerReferences: [owner] },
  });
}

export async function reconcileIntegration(deps: IntegrationDeps, ns: string, name: string): Promise<void> {
  const i = deps.view.integrations.get(`${ns}/${name}`);
  if (!i) return;
  const d = decide(deps, i);
  const { state, ready } = assess(i, d);
  await syncOfficeService(deps, i, d, state);
  const gen = i.metadata?.generation ?? 0;
  const known = d.manifest ?? {
    name: i.spec.integrationId,
    id: i.spec.integrationId,
    capabilities: [],
    agentEnvVars: [],
  };
  const registration = registrationEntry(known, i.spec.secretName, state);
  const conditions = setCondition(i.status?.conditions, ready, deps.now());
  const unchanged =
    sameConditions(i.status?.conditions, conditions) &&
    i.status?.observedGeneration === gen &&
    sameRegistration(i.status?.registration, registration) &&
    (i.status?.enabledAgents ?? []).join(',') === d.enabledAgents.join(',');
  if (unchanged) return;
  await deps.status.write('Integration', ns, name, {
    observedGeneration: gen,
    registration,
    conditions,
    enabledAgents: d.enabledAgents,
  });
}
