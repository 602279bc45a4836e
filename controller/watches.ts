// Which informer events enqueue which requests, as two controller-runtime style tables: the agent
// controller (requests name an agent) and the Integration controller. Reconcilers then read current
// state from the caches, never the event.
import type { KubernetesObject, V1Deployment, V1Pod, V1Secret } from '@kubernetes/client-node';
import { LABEL_AGENT, LABEL_GENERATED, LABEL_INSTANCE, LABEL_INTEGRATION } from '../cluster/labels.ts';
import type { AgentBindingObject, IntegrationObject } from '../cluster/objects.ts';
import { integrationResourceName } from '../cluster/registration.ts';
import { bindingsOfSecret, type ClusterView, integrationsOfSecret } from './reconcilers/cluster-view.ts';
import { replicaFailure } from './reconcilers/replica-failure.ts';
import { INIT_CONTAINER } from './render/init-script.ts';
import { type ControllerSpec, watch, wire } from './runtime/builder.ts';
import { anyOf, changed, labelPresent, specOrMetadataChanged, updatesOnly } from './runtime/predicates.ts';
import type { Request } from './runtime/reconcile.ts';

/** The agent a workload or pod belongs to, by its colony.ai/agent label. */
const labelledAgent = (o: KubernetesObject): Request[] => [
  { namespace: o.metadata?.namespace ?? '', name: o.metadata?.labels?.[LABEL_AGENT] ?? '' },
];

/** A generated Secret (credential files, database credentials) concerns the users of its source. */
function sourceSecret(s: V1Secret): string {
  const name = s.metadata?.name ?? '';
  if (s.metadata?.labels?.[LABEL_GENERATED] !== 'true') return name;
  return name.endsWith('-files') ? name.slice(0, -'-files'.length) : name;
}

/** Whether the colony-init container's outcome changed: the only thing about a pod that counts. */
const initOutcome = (p: V1Pod) => {
  const init = p.status?.initContainerStatuses?.find((c) => c.name === INIT_CONTAINER);
  return (
    JSON.stringify(init?.state?.terminated?.exitCode ?? null) +
    JSON.stringify(init?.lastState?.terminated?.exitCode ?? null)
  );
};

// A credential check's verdict is status, but it decides whether agents get the integration.
const integrationChanged = anyOf<IntegrationObject>(
  specOrMetadataChanged,
  changed((i) => i.status?.credentialCheck ?? null),
);
// ReplicaFailure is status, but it is what the bindings report when pods are refused.
const podsRefusedChanged = changed<V1Deployment>(replicaFailure);

/** The requests of everything that uses one Secret: its agents and its Integrations. */
function usersOfSecret(view: ClusterView) {
  const valid = (ns: string | undefined, secret: string | undefined): ns is string => !!ns && !!secret;
  return {
    agents: (ns: string | undefined, secret: string | undefined): Request[] =>
      valid(ns, secret)
        ? bindingsOfSecret(view, ns, secret ?? '').map((b) => ({ namespace: ns, name: b.spec.agentName }))
        : [],
    integrations: (ns: string | undefined, secret: string | undefined): Request[] =>
      valid(ns, secret)
        ? integrationsOfSecret(view, ns, secret ?? '').map((i) => ({
            namespace: ns,
            name: i.metadata?.name ?? '',
          }))
        : [],
  };
}

/** The Integration a per-office service object belongs to, by its labels. */
function serviceIntegration(o: KubernetesObject): Request {
  const labels = o.metadata?.labels ?? {};
  return {
    namespace: o.metadata?.namespace ?? '',
    name: integrationResourceName(labels[LABEL_INTEGRATION] ?? '', labels[LABEL_INSTANCE]),
  };
}

/** The two controllers: which events concern which agents and which Integrations. */
export function colonyControllers(view: ClusterView): {
  agents: ControllerSpec;
  integrations: ControllerSpec;
} {
  const users = usersOfSecret(view);
  // Whether a service's pods can be created is part of its agents' bindings too.
  const integrationOfService = (d: V1Deployment) => {
    const req = serviceIntegration(d);
    return req.namespace && d.metadata?.labels?.[LABEL_INTEGRATION]
      ? view.integrations.get(`${req.namespace}/${req.name}`)
      : undefined;
  };
  const serviceHealth = [updatesOnly, podsRefusedChanged];
  return {
    agents: {
      name: 'agents',
      kind: 'Agent',
      watches: [
        // A binding concerns its own agent; the other agents sharing its Secret are unaffected
        // (fanning out to them made every resync O(n^2)). A binding that moved concerns both agents.
        watch<AgentBindingObject>({
          source: view.bindings,
          map: (b) => [{ namespace: b.metadata?.namespace ?? '', name: b.spec.agentName }],
          mapOld: true,
          predicates: [specOrMetadataChanged],
        }),
        watch<IntegrationObject>({
          source: view.integrations,
          map: (i) => users.agents(i.metadata?.namespace, i.spec.secretName),
          predicates: [integrationChanged],
        }),
        watch<V1Secret>({
          source: view.secrets,
          map: (s) => users.agents(s.metadata?.namespace, sourceSecret(s)),
        }),
        ...[view.deployments, view.statefulSets].map((source) =>
          watch<V1Deployment>({
            source,
            map: labelledAgent,
            predicates: [anyOf(specOrMetadataChanged, podsRefusedChanged)],
          }),
        ),
        watch<V1Pod>({ source: view.pods, map: labelledAgent, predicates: [changed(initOutcome)] }),
        watch<V1Deployment>({
          source: view.serviceDeployments,
          map: (d) => users.agents(d.metadata?.namespace, integrationOfService(d)?.spec.secretName),
          predicates: serviceHealth,
        }),
      ],
      // Database credentials are owned by the binding they were made for: they concern its agent.
      owns: [
        {
          source: view.secrets,
          ownerKind: 'AgentBinding',
          map: (owner) => {
            const b = view.bindings.get(`${owner.namespace}/${owner.name}`);
            return b ? [{ namespace: owner.namespace, name: b.spec.agentName }] : [];
          },
        },
      ],
    },
    integrations: {
      name: 'integrations',
      kind: 'Integration',
      for: { source: view.integrations, predicates: [integrationChanged] },
      watches: [
        // An Integration counts the agents of its Secret, which other Integrations may share.
        watch<IntegrationObject>({
          source: view.integrations,
          map: (i) => users.integrations(i.metadata?.namespace, i.spec.secretName),
          predicates: [integrationChanged],
        }),
        watch<AgentBindingObject>({
          source: view.bindings,
          map: (b) => users.integrations(b.metadata?.namespace, b.spec.secretName),
          mapOld: true,
          predicates: [specOrMetadataChanged],
        }),
        watch<V1Secret>({
          source: view.secrets,
          map: (s) => users.integrations(s.metadata?.namespace, sourceSecret(s)),
        }),
        // The per-office service's readiness is part of the Integration's status: every change counts.
        ...[view.serviceDeployments, view.services].map((source) =>
          watch<KubernetesObject>({
            source,
            map: (o) => [serviceIntegration(o)],
            predicates: [labelPresent(LABEL_INTEGRATION)],
          }),
        ),
        watch<V1Deployment>({
          source: view.serviceDeployments,
          map: (d) => users.integrations(d.metadata?.namespace, integrationOfService(d)?.spec.secretName),
          predicates: serviceHealth,
        }),
      ],
    },
  };
}

/** Where requests go: the agents' queue and the Integrations' queue. */
export interface EventQueues {
  agents: { add(key: string, lowPriority?: boolean): void };
  integrations: { add(key: string, lowPriority?: boolean): void };
}

/** Registers both controllers' handlers on the view's informers; returns the two tables. */
export function wireEvents(view: ClusterView, queues: EventQueues): ReturnType<typeof colonyControllers> {
  const specs = colonyControllers(view);
  wire(specs.agents, (key, low) => queues.agents.add(key, low));
  wire(specs.integrations, (key, low) => queues.integrations.add(key, low));
  return specs;
}
