// Reconciles one agent (namespace + agent name): injects the env vars of every enabled, valid
// binding into its workload and reports each binding's outcome in its status.
import type { V1Container, V1Deployment, V1EnvVar, V1StatefulSet } from '@kubernetes/client-node';
import type { AgentBindingObject } from '../../api/office/office-cluster.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import { credentialsChecksum, type Injection, renderAgentEnvApply, renderEnv } from '../render/agent-env.ts';
import { ANNOTATION_AGENT_CONTAINER, ANNOTATION_CHECKSUM, ANNOTATION_INJECTED } from '../render/labels.ts';
import { officeServiceUrl } from '../render/office-service.ts';
import type { Applier } from '../runtime/apply.ts';
import { sameConditions, setCondition } from '../runtime/conditions.ts';
import type { StatusWriter } from '../runtime/status-writer.ts';
import { agentWorkload, bindingsOfAgent, type ClusterView, integrationForSecret } from './cluster-view.ts';

export interface AgentDeps {
  view: ClusterView;
  registry: IntegrationRegistry;
  applier: Applier;
  status: StatusWriter;
  now: () => Date;
  recordEvent?: (b: AgentBindingObject, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

type Outcome =
  | { ok: true; injection: Injection }
  | { ok: false; reason: string; message: string }
  | { ok: 'disabled' };

/** Why a binding cannot be injected, named the way conditions name things. */
function evaluate(deps: AgentDeps, ns: string, b: AgentBindingObject): Outcome {
  if (!b.spec.enabled) return { ok: 'disabled' };
  const manifest = deps.registry.get(b.spec.integrationId);
  if (!manifest)
    return {
      ok: false,
      reason: 'UnknownIntegration',
      message: `no integration ${b.spec.integrationId} in the registry`,
    };
  const integration = integrationForSecret(deps.view, ns, b.spec.secretName);
  if (!integration)
    return {
      ok: false,
      reason: 'IntegrationNotConfigured',
      message: `no Integration uses Secret ${b.spec.secretName}`,
    };
  const secret = deps.view.secrets.get(`${ns}/${b.spec.secretName}`);
  if (!secret)
    return { ok: false, reason: 'SecretNotFound', message: `Secret ${b.spec.secretName} does not exist` };
  const missing = manifest.agentEnvVars.filter((k) => !secret.data?.[k]);
  if (missing.length > 0) {
    return {
      ok: false,
      reason: 'SecretKeyMissing',
      message: `Secret ${b.spec.secretName} lacks ${missing.join(', ')}`,
    };
  }
  const url = officeServiceUrl({
    manifest,
    officeId: integration.spec.officeId,
    namespace: ns,
    secretName: b.spec.secretName,
    instanceLabel: integration.spec.instanceLabel,
  });
  const urlEnv = manifest.colonyContainer?.urlEnv;
  return {
    ok: true,
    injection: {
      integrationId: integration.metadata?.name ?? manifest.id,
      secretName: b.spec.secretName,
      secretVersion: secret.metadata?.resourceVersion ?? '',
      envVars: manifest.agentEnvVars,
      ...(url && urlEnv ? { values: { [urlEnv]: url } } : {}),
    },
  };
}

function targetContainer(w: V1Deployment | V1StatefulSet): V1Container | undefined {
  const containers = w.spec?.template.spec?.containers ?? [];
  const named = w.metadata?.annotations?.[ANNOTATION_AGENT_CONTAINER];
  return named ? containers.find((c) => c.name === named) : containers[0];
}

/** True when the workload already carries exactly what we would apply. */
function upToDate(w: V1Deployment | V1StatefulSet, container: V1Container, injections: Injection[]): boolean {
  const desired = renderEnv(injections);
  const injected = w.metadata?.annotations?.[ANNOTATION_INJECTED] ?? '';
  if (injected !== desired.map((e) => e.name).join(',')) return false;
  const checksum = w.spec?.template.metadata?.annotations?.[ANNOTATION_CHECKSUM];
  if ((checksum ?? '') !== (desired.length > 0 ? credentialsChecksum(injections) : '')) return false;
  // Compared field by field: objects read back from the API server need not keep our key order.
  const shape = (e: V1EnvVar) =>
    `${e.value ?? ''}|${e.valueFrom?.secretKeyRef?.name ?? ''}|${e.valueFrom?.secretKeyRef?.key ?? ''}`;
  const current = new Map((container.env ?? []).map((e) => [e.name, shape(e)]));
  return desired.every((e) => current.get(e.name) === shape(e));
}

type Verdict = { available: boolean; degraded: boolean; reason: string; message: string };

/** One binding's outcome in words: whether it is injected, and why not. */
function verdict(b: AgentBindingObject, outcome: Outcome, workload: string | undefined): Verdict {
  if (outcome.ok === 'disabled') {
    return {
      available: false,
      degraded: false,
      reason: 'Disabled',
      message: 'the integration is toggled off for this agent',
    };
  }
  if (!workload) {
    const message = `no Deployment or StatefulSet is labelled colony.ai/agent=${b.spec.agentName}`;
    return { available: false, degraded: true, reason: 'WorkloadNotFound', message };
  }
  if (outcome.ok)
    return { available: true, degraded: false, reason: 'Injected', message: `env injected into ${workload}` };
  return { available: false, degraded: true, reason: outcome.reason, message: outcome.message };
}

function bindingStatus(b: AgentBindingObject, outcome: Outcome, workload: string | undefined, now: Date) {
  const observedGeneration = b.metadata?.generation ?? 0;
  const v = verdict(b, outcome, workload);
  const cond = (type: string, on: boolean) => ({
    type,
    status: on ? ('True' as const) : ('False' as const),
    reason: v.reason,
    message: v.message,
    observedGeneration,
  });
  const conditions = setCondition(
    setCondition(b.status?.conditions, cond('Available', v.available), now),
    cond('Degraded', v.degraded),
    now,
  );
  const injectedEnv =
    outcome.ok === true && workload
      ? [...outcome.injection.envVars, ...Object.keys(outcome.injection.values ?? {})]
      : [];
  return { observedGeneration, conditions, injectedEnv };
}

/** Applies the agent's env when it differs from what the workload carries; returns its name. */
async function syncWorkload(
  deps: AgentDeps,
  ns: string,
  agentName: string,
  outcomes: { outcome: Outcome }[],
): Promise<string | undefined> {
  const workload = agentWorkload(deps.view, ns, agentName);
  const container = workload ? targetContainer(workload.obj) : undefined;
  if (!workload || !container) return undefined;
  const injections = outcomes.flatMap(({ outcome }) => (outcome.ok === true ? [outcome.injection] : []));
  const name = workload.obj.metadata?.name ?? '';
  if (!upToDate(workload.obj, container, injections)) {
    const ref = {
      apiVersion: 'apps/v1' as const,
      kind: workload.kind,
      name,
      namespace: ns,
      container: container.name,
    };
    await deps.applier.apply(renderAgentEnvApply(ref, injections));
  }
  return `${workload.kind}/${name}`;
}

/** Writes a binding's status only when it says something new: a no-op resync writes nothing. */
async function writeBindingStatus(
  deps: AgentDeps,
  ns: string,
  b: AgentBindingObject,
  next: ReturnType<typeof bindingStatus>,
) {
  const unchanged =
    sameConditions(b.status?.conditions, next.conditions) &&
    b.status?.observedGeneration === next.observedGeneration &&
    JSON.stringify(b.status?.injectedEnv ?? []) === JSON.stringify(next.injectedEnv);
  if (unchanged) return;
  const available = next.conditions.find((c) => c.type === 'Available');
  if (available) {
    const type = available.status === 'True' ? 'Normal' : 'Warning';
    deps.recordEvent?.(b, type, available.reason, available.message);
  }
  await deps.status.write('AgentBinding', ns, b.metadata?.name ?? '', next);
}

export async function reconcileAgent(deps: AgentDeps, ns: string, agentName: string): Promise<void> {
  const outcomes = bindingsOfAgent(deps.view, ns, agentName).map((b) => ({
    b,
    outcome: evaluate(deps, ns, b),
  }));
  const workloadName = await syncWorkload(deps, ns, agentName, outcomes);
  for (const { b, outcome } of outcomes) {
    await writeBindingStatus(deps, ns, b, bindingStatus(b, outcome, workloadName, deps.now()));
  }
}
