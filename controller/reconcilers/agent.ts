// Reconciles one agent (namespace + agent name): injects the env vars and layers of every enabled,
// valid binding into its workload and reports each binding's outcome in its status.
import type { AgentBindingObject } from '../../cluster/objects.ts';
import { renderEnv } from '../render/agent-env.ts';
import { INIT_CONTAINER, INIT_FAILURE } from '../render/init-script.ts';
import { type Request, type Result, RetryableError } from '../runtime/reconcile.ts';
import type { AgentDeps } from './agent-deps.ts';
import { nameInstances } from './agent-instances.ts';
import { evaluate, type Outcome } from './agent-outcome.ts';
import {
  type Evaluated,
  injectionsOf,
  type Refusal,
  syncWorkload,
  type WorkloadSync,
} from './agent-workload.ts';
import { bindingsOfAgent, podsOfAgent } from './cluster-view.ts';
import { sameConditions, setCondition } from './conditions.ts';
import { replicaFailure } from './replica-failure.ts';

type Verdict = { available: boolean; degraded: boolean; reason: string; message: string };

/** One binding's outcome in words: whether it is injected, and why not. */
function verdict(
  b: AgentBindingObject,
  outcome: Outcome,
  sync: WorkloadSync,
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
  if (!sync.workload) {
    const message = `no Deployment or StatefulSet is labelled colony.ai/agent=${b.spec.agentName}`;
    return { available: false, degraded: true, reason: 'WorkloadNotFound', message };
  }
  if (!outcome.ok)
    return { available: false, degraded: true, reason: outcome.reason, message: outcome.message };
  const refused = sync.refused.get(b.metadata?.name ?? '');
  if (refused) return { available: false, degraded: true, ...refused };
  if (installFailure)
    return { available: true, degraded: true, reason: 'InstallFailed', message: installFailure };
  const pods = sync.podsProblem ?? serviceProblem(outcome);
  if (pods) return { available: true, degraded: true, ...pods };
  if (outcome.unverified) {
    const message = `env injected into ${sync.workload}; ${outcome.unverified}`;
    return { available: true, degraded: true, reason: 'CredentialUnverified', message };
  }
  return {
    available: true,
    degraded: false,
    reason: 'Injected',
    message: `env injected into ${sync.workload}`,
  };
}

/** A per-office service whose pods cannot be created leaves the agent with a URL nobody answers. */
function serviceProblem(outcome: Extract<Outcome, { ok: true }>): Refusal | undefined {
  const failure = replicaFailure(outcome.service);
  return failure
    ? {
        reason: 'ServiceReplicaFailure',
        message: `the per-office service ${outcome.service?.metadata?.name} cannot create pods: ${failure}`,
      }
    : undefined;
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
    outcome.ok === true && v.available ? renderEnv(injectionsOf(outcome)).map((e) => e.name) : [];
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

/**
 * Reconciles the agent a request names. A refused apply is reported on every binding first, then
 * retried with backoff; any other failure is thrown as it comes and retried the same way.
 */
export async function reconcileAgent(deps: AgentDeps, req: Request): Promise<Result | undefined> {
  const { namespace: ns, name: agentName } = req;
  const evaluated = nameInstances(
    bindingsOfAgent(deps.view, ns, agentName).map((b) => ({ b, outcome: evaluate(deps, ns, b) })),
  );
  const outcomes: Evaluated[] = [];
  for (const { b, outcome } of evaluated)
    outcomes.push({ b, outcome: await withDatabase(deps, ns, b, outcome) });
  const sync = await syncWorkload(deps, ns, agentName, outcomes);
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
      bindingStatus(b, verdict(b, outcome, sync, failure), outcome, deps.now()),
    );
  }
  if (sync.retry) throw retryable(sync.retry);
  return undefined;
}

const retryable = (err: unknown) =>
  new RetryableError(err instanceof Error ? err.message : String(err), { cause: err });

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
