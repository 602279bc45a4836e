// The agent's workload: applies the env and layers of its enabled bindings, and the agent label on
// its pod template, under one field manager, holding back the bindings that cannot be applied (an
// owner's own value, a refusal by the API server) so that the rest still lands, and reads back
// whether its pods can be created.
import type {
  KubernetesObject,
  V1ConfigMap,
  V1Container,
  V1Deployment,
  V1EnvVar,
  V1StatefulSet,
} from '@kubernetes/client-node';
import {
  ANNOTATION_AGENT_CONTAINER,
  ANNOTATION_APPLIED,
  ANNOTATION_INJECTED,
  LABEL_AGENT,
  LABEL_MANAGED_BY,
  MANAGED_BY,
} from '../../cluster/labels.ts';
import type { AgentBindingObject } from '../../cluster/objects.ts';
import { bindingOrder } from '../../integrations/registry/agent-surface.ts';
import { appliedHash, type Injection, renderAgentEnvApply, renderEnv } from '../render/agent-env.ts';
import { configMapName, renderAgentLayers } from '../render/agent-layers.ts';
import { type ApiFailure, apiFailure, isTransient } from '../runtime/api-failure.ts';
import type { AgentDeps } from './agent-deps.ts';
import type { Outcome } from './agent-outcome.ts';
import { agentWorkload } from './cluster-view.ts';
import { envOwners, formClashes } from './field-owners.ts';
import { replicaFailure } from './replica-failure.ts';

/** Why a binding that evaluated fine is still not in effect, or not running. */
export interface Refusal {
  reason: string;
  message: string;
}

export const injectionsOf = (o: Extract<Outcome, { ok: true }>) => [o.injection, ...(o.extra ?? [])];

function targetContainer(w: V1Deployment | V1StatefulSet): V1Container | undefined {
  const containers = w.spec?.template.spec?.containers ?? [];
  const named = w.metadata?.annotations?.[ANNOTATION_AGENT_CONTAINER];
  return named ? containers.find((c) => c.name === named) : containers[0];
}

/**
 * The agent label the pod template is applied with: the agent's name, unless the template already
 * carries another value for it. Its selector may name that value (changing it would be refused),
 * and its pods are counted as agent pods either way.
 */
function podLabel(w: V1Deployment | V1StatefulSet, agentName: string): string | undefined {
  const current = w.spec?.template.metadata?.labels?.[LABEL_AGENT];
  return current === undefined || current === agentName ? agentName : undefined;
}

/** True when the workload already carries exactly what we would apply. */
function upToDate(
  w: V1Deployment | V1StatefulSet,
  container: V1Container,
  injections: Injection[],
  hash: string | undefined,
): boolean {
  // A template without the agent label is applied once, whatever else it carries: its pods are metered.
  if (w.spec?.template.metadata?.labels?.[LABEL_AGENT] === undefined) return false;
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

export type Evaluated = { b: AgentBindingObject; outcome: Outcome };
type Enabled = { b: AgentBindingObject; outcome: Extract<Outcome, { ok: true }> };

export interface WorkloadSync {
  /** `Kind/name` of the agent's workload, when there is one. */
  workload?: string;
  /** Bindings held back from the apply, by binding name, and why. */
  refused: Map<string, Refusal>;
  /** The workload's pods cannot be created (a Deployment's ReplicaFailure). */
  podsProblem?: Refusal | undefined;
  /** A failure that concerns the whole apply: reported on every binding, then retried. */
  retry?: unknown;
}

const bindingName = (b: AgentBindingObject) => b.metadata?.name ?? '';

/** What applying a set of bindings means: the env, the layers and their hash. */
function rendering(deps: AgentDeps, agentName: string, list: readonly Enabled[], held: readonly string[]) {
  const injections = list.flatMap((e) => injectionsOf(e.outcome));
  const layers = renderAgentLayers(
    agentName,
    list.map((e) => e.outcome.layers),
    deps.initImage,
    deps.initSecurityContext,
  );
  const owned =
    injections.length > 0 || held.length > 0 || layers.volumes.length > 0 || !!layers.initContainer;
  return { injections, layers, held, hash: owned ? appliedHash(injections, layers, held) : undefined };
}

/** Names an owner set as plain values where Colony injects references: held back, owner named. */
async function ownerClashes(
  deps: AgentDeps,
  workload: { kind: string; obj: V1Deployment | V1StatefulSet },
  container: V1Container,
  enabled: readonly Enabled[],
): Promise<{ refused: Map<string, Refusal>; held: string[] }> {
  const out = new Map<string, Refusal>();
  const clashing = enabled.flatMap((e) => {
    const names = formClashes(container, renderEnv(injectionsOf(e.outcome)));
    return names.length > 0 ? [{ e, names }] : [];
  });
  const held = clashing.flatMap((c) => c.names);
  if (clashing.length === 0) return { refused: out, held };
  // managedFields come from the live object: the caches need not keep them.
  const ref = { apiVersion: 'apps/v1', kind: workload.kind, metadata: workload.obj.metadata ?? {} };
  const live = await deps.applier.read(ref).catch(() => workload.obj);
  const where = `container ${container.name} of ${workload.kind}/${workload.obj.metadata?.name}`;
  for (const { e, names } of clashing) {
    const fields = names.map((n) => {
      const owners = envOwners(live, container.name, n);
      return `env ${n} (set by ${owners.length > 0 ? owners.join(', ') : 'another field manager'})`;
    });
    out.set(bindingName(e.b), {
      reason: 'FieldConflict',
      message: `${where} holds its own value for ${fields.join(', ')}; Colony injects a Secret reference there and will not overwrite it. Remove that value, or disable ${e.b.spec.integrationId} for ${e.b.spec.agentName}`,
    });
  }
  return { refused: out, held };
}

/**
 * Applies the agent's env and layers when they differ from what the workload carries. A refused
 * apply is narrowed down with dry runs to the bindings that cause it; the rest is applied.
 */
export async function syncWorkload(
  deps: AgentDeps,
  ns: string,
  agentName: string,
  evaluated: readonly Evaluated[],
): Promise<WorkloadSync> {
  const workload = agentWorkload(deps.view, ns, agentName);
  const container = workload ? targetContainer(workload.obj) : undefined;
  if (!workload || !container) return { refused: new Map() };
  const name = workload.obj.metadata?.name ?? '';
  const clashes = await ownerClashes(deps, workload, container, enabledOf(evaluated));
  const sync: WorkloadSync = { workload: `${workload.kind}/${name}`, refused: clashes.refused };
  const failure = replicaFailure(workload.obj);
  if (failure)
    sync.podsProblem = {
      reason: 'ReplicaFailure',
      message: `${sync.workload} cannot create pods: ${failure}`,
    };
  const ref = {
    apiVersion: 'apps/v1' as const,
    kind: workload.kind,
    name,
    namespace: ns,
    container: container.name,
    agentName: podLabel(workload.obj, agentName),
  };
  const target: Target = {
    body: (list) => {
      const r = rendering(deps, agentName, list, clashes.held);
      return renderAgentEnvApply(ref, r.injections, r.layers, r.held);
    },
    apply: async (list) => {
      const r = rendering(deps, agentName, list, clashes.held);
      if (upToDate(workload.obj, container, r.injections, r.hash)) return;
      if (r.layers.config)
        await deps.applier.apply(configMap(ns, agentName, workload.obj, workload.kind, r.layers.config));
      await deps.applier.apply(renderAgentEnvApply(ref, r.injections, r.layers, r.held));
    },
  };
  const candidates = enabledOf(evaluated).filter((e) => !sync.refused.has(bindingName(e.b)));
  try {
    await target.apply(candidates);
    return sync;
  } catch (err) {
    const f = apiFailure(err);
    if (!f || isTransient(f)) throw err;
    return narrowDown(deps, sync, target, candidates, f, err);
  }
}

/** How to render and apply a set of the agent's bindings. */
interface Target {
  body(list: readonly Enabled[]): object;
  apply(list: readonly Enabled[]): Promise<void>;
}

/** After a refused apply: which bindings the API server refuses (dry runs), and the rest applied. */
async function narrowDown(
  deps: AgentDeps,
  sync: WorkloadSync,
  target: Target,
  candidates: readonly Enabled[],
  failure: ApiFailure,
  err: unknown,
): Promise<WorkloadSync> {
  const says = (g: ApiFailure) =>
    `the API server refused the apply to ${sync.workload} (${g.code} ${g.reason}): ${g.message}`;
  try {
    await deps.applier.dryRun(target.body([]) as KubernetesObject);
  } catch {
    // Not one binding's doing: even an apply of nothing fails. Every binding says so; retried.
    for (const e of candidates)
      sync.refused.set(bindingName(e.b), { reason: failure.reason, message: says(failure) });
    return { ...sync, retry: err };
  }
  const kept: Enabled[] = [];
  for (const e of candidates) {
    try {
      await deps.applier.dryRun(target.body([...kept, e]) as KubernetesObject);
      kept.push(e);
    } catch (trialErr) {
      const g = apiFailure(trialErr);
      if (!g || isTransient(g)) throw trialErr;
      sync.refused.set(bindingName(e.b), { reason: g.reason, message: says(g) });
    }
  }
  await target.apply(kept);
  return sync;
}

const enabledOf = (evaluated: readonly Evaluated[]): Enabled[] =>
  evaluated
    .flatMap((e) => (e.outcome.ok === true ? [{ b: e.b, outcome: e.outcome }] : []))
    .sort((x, y) => (bindingOrder(x.b) < bindingOrder(y.b) ? -1 : 1));

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
