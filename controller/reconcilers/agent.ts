// Reconciles one agent (namespace + agent name): injects the env vars and layers of every enabled,
// valid binding into its workload and reports each binding's outcome in its status.
import type {
  V1ConfigMap,
  V1Container,
  V1Deployment,
  V1EnvVar,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { AgentBindingObject } from '../../api/office/office-cluster.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import { appliedHash, type Injection, renderAgentEnvApply, renderEnv } from '../render/agent-env.ts';
import { configMapName, renderAgentLayers } from '../render/agent-layers.ts';
import { INIT_CONTAINER, INIT_FAILURE } from '../render/init-script.ts';
import {
  ANNOTATION_AGENT_CONTAINER,
  ANNOTATION_APPLIED,
  ANNOTATION_INJECTED,
  LABEL_AGENT,
  LABEL_MANAGED_BY,
  MANAGED_BY,
} from '../render/labels.ts';
import type { Applier } from '../runtime/apply.ts';
import { sameConditions, setCondition } from '../runtime/conditions.ts';
import type { StatusWriter } from '../runtime/status-writer.ts';
import { evaluate, type Outcome } from './agent-outcome.ts';
import { agentWorkload, bindingsOfAgent, type ClusterView, podsOfAgent } from './cluster-view.ts';
import type { DatabaseLayer } from './database-layer.ts';

export interface AgentDeps {
  view: ClusterView;
  registry: IntegrationRegistry;
  applier: Applier;
  status: StatusWriter;
  now: () => Date;
  /** Image of the colony-init container (shared-drive folders, cliInstalls). */
  initImage: string;
  /** Whether the credentialCheck layer runs; when off, its verdict does not gate agents. */
  credentialChecks?: boolean;
  /** The database layer; undefined when no office database is configured. */
  database?: DatabaseLayer | undefined;
  recordEvent?: (b: AgentBindingObject, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

function targetContainer(w: V1Deployment | V1StatefulSet): V1Container | undefined {
  const containers = w.spec?.template.spec?.containers ?? [];
  const named = w.metadata?.annotations?.[ANNOTATION_AGENT_CONTAINER];
  return named ? containers.find((c) => c.name === named) : containers[0];
}

/** True when the workload already carries exactly what we would apply. */
function upToDate(
  w: V1Deployment | V1StatefulSet,
  container: V1Container,
  injections: Injection[],
  hash: string | undefined,
): boolean {
  const desired = renderEnv(injections);
  const annotations = w.metadata?.annotations ?? {};
  if ((annotations[ANNOTATION_INJECTED] ?? '') !== desired.map((e) => e.name).join(',')) return false;
  if (annotations[ANNOTATION_APPLIED] !== hash) return false;
  // Compared field by field: objects read back from the API server need not keep our key order.
  const shape = (e: V1EnvVar) =>
    `${e.value ?? ''}|${e.valueFrom?.secretKeyRef?.name ?? ''}|${e.valueFrom?.secretKeyRef?.key ?? ''}`;
  const current = new Map((container.env ?? []).map((e) => [e.name, shape(e)]));
  return desired.every((e) => current.get(e.name) === shape(e));
}

type Verdict = { available: boolean; degraded: boolean; reason: string; message: string };

/** One binding's outcome in words: whether it is injected, and why not. */
function verdict(
  b: AgentBindingObject,
  outcome: Outcome,
  workload: string | undefined,
  installFailure: string | undefined,
): Verdict {
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
  if (outcome.ok && installFailure)
    return { available: true, degraded: true, reason: 'InstallFailed', message: installFailure };
  if (outcome.ok && outcome.unverified) {
    const message = `env injected into ${workload}; ${outcome.unverified}`;
    return { available: true, degraded: true, reason: 'CredentialUnverified', message };
  }
  if (outcome.ok)
    return { available: true, degraded: false, reason: 'Injected', message: `env injected into ${workload}` };
  return { available: false, degraded: true, reason: outcome.reason, message: outcome.message };
}

function bindingStatus(b: AgentBindingObject, v: Verdict, outcome: Outcome, now: Date) {
  const observedGeneration = b.metadata?.generation ?? 0;
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
    outcome.ok === true && v.available
      ? [...outcome.injection.envVars, ...Object.keys(outcome.injection.values ?? {})]
      : [];
  return { observedGeneration, conditions, injectedEnv };
}

/** A failed colony-init on any of the agent's pods, attributed to the integration it names. */
function installFailures(deps: AgentDeps, ns: string, agentName: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pod of podsOfAgent(deps.view, ns, agentName)) {
    const s = pod.status?.initContainerStatuses?.find((c) => c.name === INIT_CONTAINER);
    const t = s?.state?.terminated ?? s?.lastState?.terminated;
    if (!t || t.exitCode === 0) continue;
    const text = t.message ?? '';
    const id = INIT_FAILURE.exec(text)?.[1] ?? '*';
    const why = text.trim().split('\n').slice(-3).join(' ').slice(0, 400);
    out.set(
      id,
      `${INIT_CONTAINER} failed on pod ${pod.metadata?.name} (exit ${t.exitCode}): ${why || t.reason || 'no message'}`,
    );
  }
  return out;
}

/** Applies the agent's env and layers when they differ from what the workload carries; returns its name. */
async function syncWorkload(
  deps: AgentDeps,
  ns: string,
  agentName: string,
  outcomes: { outcome: Outcome }[],
): Promise<string | undefined> {
  const workload = agentWorkload(deps.view, ns, agentName);
  const container = workload ? targetContainer(workload.obj) : undefined;
  if (!workload || !container) return undefined;
  const ok = outcomes.flatMap(({ outcome }) => (outcome.ok === true ? [outcome] : []));
  const injections = ok.flatMap((o) => [o.injection, ...(o.extra ?? [])]);
  const layers = renderAgentLayers(
    agentName,
    ok.map((o) => o.layers),
    deps.initImage,
  );
  const name = workload.obj.metadata?.name ?? '';
  const owned = injections.length > 0 || layers.volumes.length > 0 || !!layers.initContainer;
  const hash = owned ? appliedHash(injections, layers) : undefined;
  if (!upToDate(workload.obj, container, injections, hash)) {
    if (layers.config)
      await deps.applier.apply(configMap(ns, agentName, workload.obj, workload.kind, layers.config));
    const ref = {
      apiVersion: 'apps/v1' as const,
      kind: workload.kind,
      name,
      namespace: ns,
      container: container.name,
      agentName,
    };
    await deps.applier.apply(renderAgentEnvApply(ref, injections, layers));
  }
  return `${workload.kind}/${name}`;
}

/** The merged integration config, owned by the workload so it goes away with the agent. */
function configMap(
  ns: string,
  agentName: string,
  w: V1Deployment | V1StatefulSet,
  kind: string,
  config: object,
): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: configMapName(agentName),
      namespace: ns,
      labels: { [LABEL_AGENT]: agentName, [LABEL_MANAGED_BY]: MANAGED_BY },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind, name: w.metadata?.name ?? '', uid: w.metadata?.uid ?? '' },
      ],
    },
    data: { 'integrations.json': `${JSON.stringify(config, null, 2)}\n` },
  };
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
  if (unchanged || b.metadata?.deletionTimestamp) return;
  const available = next.conditions.find((c) => c.type === 'Available');
  const degraded = next.conditions.find((c) => c.type === 'Degraded');
  const shown = degraded?.status === 'True' ? degraded : available;
  if (shown)
    deps.recordEvent?.(
      b,
      shown.status === 'True' && shown.type === 'Available' ? 'Normal' : 'Warning',
      shown.reason,
      shown.message,
    );
  await deps.status.write('AgentBinding', ns, b.metadata?.name ?? '', next);
}

export async function reconcileAgent(deps: AgentDeps, ns: string, agentName: string): Promise<void> {
  const outcomes: { b: AgentBindingObject; outcome: Outcome }[] = [];
  for (const b of bindingsOfAgent(deps.view, ns, agentName)) {
    const outcome = evaluate(deps, ns, b);
    outcomes.push({ b, outcome: await withDatabase(deps, ns, b, outcome) });
  }
  const workloadName = await syncWorkload(deps, ns, agentName, outcomes);
  const failures = installFailures(deps, ns, agentName);
  for (const { b, outcome } of outcomes) {
    const failure =
      outcome.ok === true && outcome.manifest.cliInstalls
        ? (failures.get(outcome.layers.resourceName) ?? failures.get('*'))
        : undefined;
    await writeBindingStatus(
      deps,
      ns,
      b,
      bindingStatus(b, verdict(b, outcome, workloadName, failure), outcome, deps.now()),
    );
  }
}

/** The database layer: a role and its credentials for an enabled binding, revoked otherwise. */
async function withDatabase(
  deps: AgentDeps,
  ns: string,
  b: AgentBindingObject,
  outcome: Outcome,
): Promise<Outcome> {
  const manifest = deps.registry.get(b.spec.integrationId);
  if (!manifest?.database) return outcome;
  if (outcome.ok !== true) {
    await deps.database?.revoke(ns, b);
    return outcome;
  }
  if (!deps.database)
    return {
      ok: false,
      reason: 'DatabaseNotConfigured',
      message: 'no office database is configured (COLONY_OFFICE_DATABASE_URL)',
    };
  try {
    const extra = await deps.database.grant(ns, b, outcome.integration, manifest);
    return { ...outcome, extra: [extra] };
  } catch (err) {
    return { ok: false, reason: 'DatabaseError', message: (err as Error).message.slice(0, 400) };
  }
}
