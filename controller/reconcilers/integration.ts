// Reconciles one Integration (namespace + name): its registration status, and for a per-office
// service the Deployment, Service and PVC, started the first time an agent enables it and torn down
// (PVC kept) when none does.
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Applier } from '../../cluster/apply.ts';
import type { IntegrationStatus, Registration } from '../../cluster/crds/integration-types.ts';
import {
  decodeSecretData,
  filesSecretName,
  type IntegrationContext,
  renderCredentialFiles,
} from '../../cluster/credential-files.ts';
import { ANNOTATION_SPEC_HASH } from '../../cluster/labels.ts';
import type { IntegrationObject } from '../../cluster/objects.ts';
import { registrationEntry, sameRegistration } from '../../cluster/registration.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import { driveClaimName } from '../render/agent-layers.ts';
import { renderCredentialCheck, renderSharedDriveClaim } from '../render/integration-layers.ts';
import { officeServiceName, renderOfficeService } from '../render/office-service.ts';
import type { PodSecurity } from '../render/pod-security.ts';
import type { Request, Result } from '../runtime/reconcile.ts';
import { bindingsOfSecret, type ClusterView } from './cluster-view.ts';
import { type NewCondition, removeCondition, sameConditions, setCondition } from './conditions.ts';
import {
  type CheckVerdict,
  DEFAULT_RETRY,
  type Fetcher,
  nextCheckAt,
  type RetryPolicy,
  resultOf,
  retryDelay,
  runCredentialCheck,
} from './credential-check.ts';
import { replicaFailure } from './replica-failure.ts';
import type { StatusWriter } from './status-writer.ts';

export interface IntegrationDeps {
  view: ClusterView;
  registry: IntegrationRegistry;
  applier: Applier;
  status: StatusWriter;
  kc: KubeConfig;
  now: () => Date;
  /** Whether the credentialCheck layer runs at all. */
  credentialChecks?: boolean;
  /** Mirrors for per-office service images (COLONY_IMAGE_OVERRIDES). */
  imageOverrides?: Readonly<Record<string, string>>;
  /** securityContexts of the per-office service pods. */
  security?: Pick<PodSecurity, 'servicePod' | 'serviceContainer'>;
  /** For the credentialCheck layer (tests pass their own). */
  fetcher?: Fetcher;
  /** Backoff of checks that could not reach the provider (DEFAULT_RETRY unless tests shorten it). */
  credentialRetry?: RetryPolicy;
  /** Records an Event on the Integration (credential checks, a service that cannot run). */
  recordEvent?: (i: IntegrationObject, type: 'Normal' | 'Warning', reason: string, message: string) => void;
  /** Claims applied in this term: a claim is created once and never updated, so one apply suffices. */
  appliedClaims?: Set<string>;
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
  // OAuth integrations are complete once the Connect flow stored their tokens.
  if (manifest?.oauth && !secret?.data?.[manifest.oauth.accessTokenKey])
    missing.push({
      key: manifest.oauth.accessTokenKey,
      label: 'OAuth access token',
      type: 'password',
      required: true,
      helpLabel: '',
    });
  return { ns, manifest, secret, enabledAgents, missing };
}

type Decision = ReturnType<typeof decide>;
type LayerProblem = { reason: string; message: string } | undefined;

/** The registration state and the Available condition that explains it. */
function assess(
  i: IntegrationObject,
  d: Decision,
  problem: LayerProblem,
): { state: Registration['Status']; ready: NewCondition } {
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
  if (problem) return no(problem.reason, problem.message);
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
    imageOverrides: deps.imageOverrides,
    security: deps.security,
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
  const owner = ownerOf(i);
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

const ownerOf = (i: IntegrationObject) => ({
  apiVersion: i.apiVersion ?? '',
  kind: 'Integration',
  name: i.metadata?.name ?? '',
  uid: i.metadata?.uid ?? '',
  controller: true,
});

/** Renders the credential files into their Secret (owned by the Integration) when they changed. */
async function syncCredentialFiles(
  deps: IntegrationDeps,
  i: IntegrationObject,
  ctx: IntegrationContext,
  values: Record<string, string>,
): Promise<LayerProblem> {
  const rendered = renderCredentialFiles(ctx, values);
  if (!rendered) return undefined;
  if (!rendered.ok) return { reason: 'TemplateError', message: rendered.message };
  const current = deps.view.secrets.get(`${ctx.namespace}/${filesSecretName(ctx.secretName)}`);
  if (current?.metadata?.annotations?.['colony.ai/files-hash'] === rendered.hash) return undefined;
  await deps.applier.apply({
    ...rendered.secret,
    metadata: { ...rendered.secret.metadata, ownerReferences: [ownerOf(i)] },
  });
  return undefined;
}

type CheckStatus = IntegrationStatus['credentialCheck'];

/** Whether the stored verdict is due for another check (a new Secret version always is). */
function checkDue(deps: IntegrationDeps, previous: CheckStatus, version: string): boolean {
  if (previous?.secretVersion !== version) return true;
  const next = nextCheckAt(previous, deps.credentialRetry ?? DEFAULT_RETRY);
  return next !== undefined && next <= deps.now().getTime();
}

/** Runs the check and stores its verdict; unverified ones carry their attempt count and retry time. */
async function runCheck(
  deps: IntegrationDeps,
  i: IntegrationObject,
  request: NonNullable<ReturnType<typeof renderCredentialCheck>>,
  version: string,
): Promise<NonNullable<CheckStatus>> {
  const previous = i.status?.credentialCheck;
  const verdict: CheckVerdict = request.ok
    ? await runCredentialCheck(request.request, deps.fetcher)
    : { result: 'Refused', message: request.message };
  const checkedAt = deps.now();
  const status = {
    ok: verdict.result === 'Verified',
    result: verdict.result,
    message: verdict.message,
    secretVersion: version,
    checkedAt: checkedAt.toISOString(),
  };
  if (verdict.result !== 'Unverified') {
    if (verdict.result === 'Refused')
      deps.recordEvent?.(i, 'Warning', 'CredentialCheckFailed', verdict.message);
    else if (previous && resultOf(previous) !== 'Verified')
      deps.recordEvent?.(i, 'Normal', 'CredentialVerified', verdict.message);
    return status;
  }
  // Backoff counts the attempts for one Secret version: a new version starts again at the base.
  const again = previous?.secretVersion === version && previous.result === 'Unverified';
  const attempts = again ? (previous.attempts ?? 0) + 1 : 1;
  const wait = retryDelay(deps.credentialRetry ?? DEFAULT_RETRY, attempts);
  deps.recordEvent?.(
    i,
    'Warning',
    'CredentialUnverified',
    `${verdict.message}; agents get the credentials unverified and the check is retried with backoff`,
  );
  return { ...status, attempts, retryAt: new Date(checkedAt.getTime() + wait).toISOString() };
}

/**
 * Runs the credential check once per Secret version, and again with backoff while the provider
 * cannot be asked. Only a refusal gates the integration.
 */
async function credentialCheck(
  deps: IntegrationDeps,
  i: IntegrationObject,
  ctx: IntegrationContext,
  d: Decision,
): Promise<{ problem: LayerProblem; status: CheckStatus; requeueAfter?: number }> {
  const version = d.secret?.metadata?.resourceVersion ?? '';
  const previous = i.status?.credentialCheck;
  const request = renderCredentialCheck(ctx, decodeSecretData(d.secret));
  if (!request || !deps.credentialChecks) return { problem: undefined, status: undefined };
  const status = checkDue(deps, previous, version) ? await runCheck(deps, i, request, version) : previous;
  if (!status) return { problem: undefined, status };
  const problem =
    resultOf(status) === 'Refused' ? { reason: 'CredentialCheckFailed', message: status.message } : undefined;
  const next = nextCheckAt(status, deps.credentialRetry ?? DEFAULT_RETRY);
  if (next === undefined) return { problem, status };
  return { problem, status, requeueAfter: Math.max(1, next - deps.now().getTime()) };
}

/** The CredentialVerified condition, or undefined where no check applies. */
function verifiedCondition(i: IntegrationObject, check: CheckStatus): NewCondition | undefined {
  if (!check) return undefined;
  const base = { type: 'CredentialVerified', observedGeneration: i.metadata?.generation ?? 0 };
  switch (resultOf(check)) {
    case 'Verified':
      return { ...base, status: 'True', reason: 'Verified', message: check.message };
    case 'Refused':
      return { ...base, status: 'False', reason: 'CredentialCheckFailed', message: check.message };
    default:
      return {
        ...base,
        status: 'False',
        reason: 'CredentialUnverified',
        message: `${check.message}; agents get the credentials unverified; attempt ${check.attempts ?? 1}, next check at ${check.retryAt ?? 'the next reconcile'}`,
      };
  }
}

/** The layers that belong to the office rather than to one agent. */
async function syncLayers(deps: IntegrationDeps, i: IntegrationObject, d: Decision) {
  if (!d.manifest || !d.secret || d.missing.length > 0)
    return { problem: undefined, check: i.status?.credentialCheck, requeueAfter: undefined };
  const ctx: IntegrationContext = {
    manifest: d.manifest,
    officeId: i.spec.officeId,
    namespace: d.ns,
    secretName: i.spec.secretName,
    instanceLabel: i.spec.instanceLabel,
  };
  const values = decodeSecretData(d.secret);
  const filesProblem = await syncCredentialFiles(deps, i, ctx, values);
  const { problem, status, requeueAfter } = await credentialCheck(deps, i, ctx, d);
  const claim = renderSharedDriveClaim(ctx, i.metadata?.name ?? '');
  const applied = deps.appliedClaims ?? new Set<string>();
  // The drive is created the first time an agent enables the integration, and kept when none does.
  if (
    claim &&
    d.enabledAgents.length > 0 &&
    !applied.has(`${d.ns}/${driveClaimName(i.metadata?.name ?? '')}`)
  ) {
    await deps.applier.apply(claim);
    applied.add(`${d.ns}/${claim.metadata?.name}`);
  }
  return { problem: filesProblem ?? problem, check: status, requeueAfter };
}

/**
 * Degraded: the per-office service's Deployment says its ReplicaSet cannot create pods (Pod
 * Security, quota, a missing ServiceAccount...), which leaves the agents' URL unanswered.
 */
function serviceHealth(
  deps: IntegrationDeps,
  i: IntegrationObject,
  d: Decision,
  state: string,
): NewCondition {
  const observedGeneration = i.metadata?.generation ?? 0;
  const name = officeServiceName(i.spec.integrationId, i.spec.instanceLabel);
  const service =
    d.manifest?.colonyContainer && state === 'active'
      ? deps.view.serviceDeployments.get(`${d.ns}/${name}`)
      : undefined;
  const failure = replicaFailure(service);
  if (failure) {
    const message = `Deployment ${name} cannot create pods: ${failure}`;
    return { type: 'Degraded', status: 'True', reason: 'ServiceReplicaFailure', message, observedGeneration };
  }
  return {
    type: 'Degraded',
    status: 'False',
    reason: 'AsExpected',
    message: 'nothing is failing',
    observedGeneration,
  };
}

/** Reconciles one Integration; `requeueAfter` says when its credential check is due again. */
export async function reconcileIntegration(deps: IntegrationDeps, req: Request): Promise<Result | undefined> {
  const { namespace: ns, name } = req;
  const i = deps.view.integrations.get(`${ns}/${name}`);
  if (!i) return undefined;
  const d = decide(deps, i);
  const layers = await syncLayers(deps, i, d);
  const { state, ready } = assess(i, d, layers.problem);
  await syncOfficeService(deps, i, d, state);
  const gen = i.metadata?.generation ?? 0;
  const known = d.manifest ?? {
    name: i.spec.integrationId,
    id: i.spec.integrationId,
    capabilities: [],
    agentEnvVars: [],
  };
  const registration = registrationEntry(known, i.spec.secretName, state);
  const verified = verifiedCondition(i, layers.check);
  const degraded = serviceHealth(deps, i, d, state);
  const withReady = setCondition(setCondition(i.status?.conditions, ready, deps.now()), degraded, deps.now());
  const conditions = verified
    ? setCondition(withReady, verified, deps.now())
    : removeCondition(withReady, 'CredentialVerified');
  const requeue = layers.requeueAfter === undefined ? undefined : { requeueAfter: layers.requeueAfter };
  const unchanged =
    sameConditions(i.status?.conditions, conditions) &&
    i.status?.observedGeneration === gen &&
    sameRegistration(i.status?.registration, registration) &&
    (i.status?.enabledAgents ?? []).join(',') === d.enabledAgents.join(',') &&
    JSON.stringify(i.status?.credentialCheck ?? null) === JSON.stringify(layers.check ?? null);
  if (unchanged) return requeue;
  const was = i.status?.conditions?.find((c) => c.type === 'Degraded');
  if (degraded.status === 'True' && (was?.status !== 'True' || was.message !== degraded.message))
    deps.recordEvent?.(i, 'Warning', degraded.reason, degraded.message);
  await deps.status.write('Integration', ns, name, {
    observedGeneration: gen,
    registration,
    conditions,
    enabledAgents: d.enabledAgents,
    ...(layers.check ? { credentialCheck: layers.check } : {}),
    ...(i.status?.oauth ? { oauth: i.status.oauth } : {}),
  });
  return requeue;
}
