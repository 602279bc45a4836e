// Which informer events enqueue which requests: every change is mapped to the agents and
// Integrations it can affect; reconcilers then read current state from the caches, never the event.
import type { KubernetesObject, V1Deployment, V1Pod, V1Secret } from '@kubernetes/client-node';
import { LABEL_AGENT, LABEL_GENERATED, LABEL_INSTANCE, LABEL_INTEGRATION } from '../cluster/labels.ts';
import type { AgentBindingObject, IntegrationObject } from '../cluster/objects.ts';
import { integrationResourceName } from '../cluster/registration.ts';
import { bindingsOfSecret, type ClusterView, integrationsOfSecret } from './reconcilers/cluster-view.ts';
import { replicaFailure } from './reconcilers/replica-failure.ts';
import { INIT_CONTAINER } from './render/init-script.ts';
import type { SharedInformer } from './runtime/multi-namespace-informer.ts';

/** Where requests go: the agents' queue and the Integrations' queue. */
export interface EventQueues {
  agents: { add(key: string, lowPriority?: boolean): void };
  integrations: { add(key: string, lowPriority?: boolean): void };
}

const keyOf = (ns: string | undefined, name: string | undefined) =>
  ns && name ? `${ns}/${name}` : undefined;

/**
 * Whether an update can change what the reconcilers decide: the spec (generation), labels,
 * annotations or deletion. Status-only updates, including the ones our own status writes and the
 * workload controllers cause, are skipped. A resync delivers the same object twice and always counts.
 */
export function worthReconciling(obj: KubernetesObject, old: KubernetesObject): boolean {
  if (obj === old) return true;
  const a = obj.metadata;
  const b = old.metadata;
  return (
    a?.generation !== b?.generation ||
    a?.deletionTimestamp !== b?.deletionTimestamp ||
    JSON.stringify(a?.labels ?? {}) !== JSON.stringify(b?.labels ?? {}) ||
    JSON.stringify(a?.annotations ?? {}) !== JSON.stringify(b?.annotations ?? {})
  );
}

export function wireEvents(view: ClusterView, queues: EventQueues): void {
  // Set while a periodic resync is being delivered (the informer hands over the same object as
  // old and new): what it enqueues waits behind real changes.
  let resyncing = false;
  const agent = (key: string | undefined) => key && queues.agents.add(key, resyncing);
  const integration = (key: string | undefined) => key && queues.integrations.add(key, resyncing);
  const update =
    <T extends KubernetesObject>(fn: (obj: T, old: T) => unknown) =>
    (obj: T, old: T) => {
      resyncing = obj === old;
      try {
        fn(obj, old);
      } finally {
        resyncing = false;
      }
    };
  const usersOfSecret = (ns: string | undefined, secretName: string | undefined) => {
    if (!ns || !secretName) return;
    for (const b of bindingsOfSecret(view, ns, secretName)) agent(keyOf(ns, b.spec.agentName));
    for (const i of integrationsOfSecret(view, ns, secretName)) integration(keyOf(ns, i.metadata?.name));
  };
  // A binding concerns its own agent and the Integration that counts its agents; the other
  // agents sharing the Secret are unaffected (fanning out to them made every resync O(n^2)).
  const onBinding = (b: AgentBindingObject) => {
    const ns = b.metadata?.namespace;
    agent(keyOf(ns, b.spec.agentName));
    if (!ns) return;
    for (const i of integrationsOfSecret(view, ns, b.spec.secretName))
      integration(keyOf(ns, i.metadata?.name));
  };
  view.bindings.on({
    add: onBinding,
    update: update<AgentBindingObject>((b, old) => {
      if (!worthReconciling(b, old)) return;
      // A binding moved to another agent or Secret must be reconciled on both sides.
      onBinding(b);
      onBinding(old);
    }),
    delete: onBinding,
  });
  const onIntegration = (i: IntegrationObject) => {
    integration(keyOf(i.metadata?.namespace, i.metadata?.name));
    usersOfSecret(i.metadata?.namespace, i.spec.secretName);
  };
  // A credential check's verdict is status, but it decides whether agents get the integration.
  const checkChanged = (i: IntegrationObject, old: IntegrationObject) =>
    JSON.stringify(i.status?.credentialCheck ?? null) !== JSON.stringify(old.status?.credentialCheck ?? null);
  view.integrations.on({
    add: onIntegration,
    update: update<IntegrationObject>(
      (i, old) => (worthReconciling(i, old) || checkChanged(i, old)) && onIntegration(i),
    ),
    delete: onIntegration,
  });
  // Generated Secrets (credential files, database credentials) concern the users of their source.
  const sourceOf = (s: V1Secret) => {
    const name = s.metadata?.name ?? '';
    if (s.metadata?.labels?.[LABEL_GENERATED] !== 'true') return name;
    return name.endsWith('-files') ? name.slice(0, -'-files'.length) : name;
  };
  const onSecret = (s: V1Secret) => {
    usersOfSecret(s.metadata?.namespace, sourceOf(s));
    const binding = s.metadata?.ownerReferences?.find((o) => o.kind === 'AgentBinding');
    const b = binding ? view.bindings.get(`${s.metadata?.namespace}/${binding.name}`) : undefined;
    if (b) agent(keyOf(s.metadata?.namespace, b.spec.agentName));
  };
  view.secrets.on({ add: onSecret, update: update<V1Secret>(onSecret), delete: onSecret });
  const onWorkload = (w: KubernetesObject) =>
    agent(keyOf(w.metadata?.namespace, w.metadata?.labels?.[LABEL_AGENT]));
  const onServiceObject = (o: KubernetesObject) => {
    const labels = o.metadata?.labels ?? {};
    const id = labels[LABEL_INTEGRATION];
    if (id) integration(keyOf(o.metadata?.namespace, integrationResourceName(id, labels[LABEL_INSTANCE])));
  };
  // Whether a service's pods can be created is part of its agents' bindings too.
  const onServiceHealth = (d: V1Deployment, old: V1Deployment) => {
    if (d !== old && replicaFailure(d) === replicaFailure(old)) return;
    const labels = d.metadata?.labels ?? {};
    const id = labels[LABEL_INTEGRATION];
    const ns = d.metadata?.namespace;
    const i =
      id && ns
        ? view.integrations.get(`${ns}/${integrationResourceName(id, labels[LABEL_INSTANCE])}`)
        : undefined;
    if (i) usersOfSecret(ns, i.spec.secretName);
  };
  for (const informer of [view.deployments, view.statefulSets] as SharedInformer<KubernetesObject>[]) {
    informer.on({
      add: onWorkload,
      // ReplicaFailure is status, but it is what the agent's bindings report when pods are refused.
      update: update(
        (w, old) =>
          (worthReconciling(w, old) ||
            replicaFailure(w as V1Deployment) !== replicaFailure(old as V1Deployment)) &&
          onWorkload(w),
      ),
      delete: onWorkload,
    });
  }
  // Only a change in the colony-init container's outcome matters for a pod.
  const initState = (p: V1Pod) =>
    JSON.stringify(
      p.status?.initContainerStatuses?.find((c) => c.name === INIT_CONTAINER)?.state?.terminated?.exitCode ??
        null,
    ) +
    JSON.stringify(
      p.status?.initContainerStatuses?.find((c) => c.name === INIT_CONTAINER)?.lastState?.terminated
        ?.exitCode ?? null,
    );
  view.pods.on({
    add: onWorkload,
    update: update<V1Pod>((p, old) => (p === old || initState(p) !== initState(old)) && onWorkload(p)),
    delete: onWorkload,
  });
  // The per-office service's readiness is part of the Integration's status: every change counts.
  for (const informer of [view.serviceDeployments, view.services] as SharedInformer<KubernetesObject>[]) {
    informer.on({ add: onServiceObject, update: update(onServiceObject), delete: onServiceObject });
  }
  view.serviceDeployments.on({ update: update<V1Deployment>(onServiceHealth) });
}
