// The controller's read model: informer caches of everything the reconcilers look at.
import type {
  KubernetesObject,
  V1Deployment,
  V1Pod,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { LABEL_AGENT } from '../../cluster/labels.ts';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import type { SharedInformer as Informer } from '../runtime/multi-namespace-informer.ts';

export interface ClusterView {
  bindings: Informer<AgentBindingObject>;
  integrations: Informer<IntegrationObject>;
  secrets: Informer<V1Secret>;
  deployments: Informer<V1Deployment>;
  statefulSets: Informer<V1StatefulSet>;
  /** Per-office service Deployments and Services (labelled colony.ai/integration). */
  serviceDeployments: Informer<V1Deployment>;
  services: Informer<V1Service>;
  /** Agent pods: the controller puts colony.ai/agent on every agent workload's pod template. */
  pods: Informer<V1Pod>;
}

// Reconcilers look objects up by these keys on every pass; indexes keep that O(1) at any scale.
const BY_AGENT = 'agent';
const BY_SECRET = 'secret';
const nsKey = (o: KubernetesObject, value: string | undefined) =>
  value ? [`${o.metadata?.namespace}/${value}`] : [];

/** Registers the indexes the lookups below use; call once, before the informers start. */
export function indexClusterView(view: ClusterView): void {
  view.bindings.addIndex(BY_AGENT, (b) => nsKey(b, b.spec.agentName));
  view.bindings.addIndex(BY_SECRET, (b) => nsKey(b, b.spec.secretName));
  view.integrations.addIndex(BY_SECRET, (i) => nsKey(i, i.spec.secretName));
  const byAgentLabel = (o: KubernetesObject) => nsKey(o, o.metadata?.labels?.[LABEL_AGENT]);
  view.statefulSets.addIndex(BY_AGENT, byAgentLabel);
  view.deployments.addIndex(BY_AGENT, byAgentLabel);
  view.pods.addIndex(BY_AGENT, byAgentLabel);
}

export function podsOfAgent(view: ClusterView, ns: string, agentName: string): V1Pod[] {
  return view.pods.byIndex(BY_AGENT, `${ns}/${agentName}`);
}

export function bindingsOfAgent(view: ClusterView, ns: string, agentName: string): AgentBindingObject[] {
  return view.bindings.byIndex(BY_AGENT, `${ns}/${agentName}`);
}

export function bindingsOfSecret(view: ClusterView, ns: string, secretName: string): AgentBindingObject[] {
  return view.bindings.byIndex(BY_SECRET, `${ns}/${secretName}`);
}

export function integrationsOfSecret(view: ClusterView, ns: string, secretName: string): IntegrationObject[] {
  return view.integrations.byIndex(BY_SECRET, `${ns}/${secretName}`);
}

export function agentWorkload(
  view: ClusterView,
  ns: string,
  agentName: string,
): { kind: 'Deployment' | 'StatefulSet'; obj: V1Deployment | V1StatefulSet } | undefined {
  const key = `${ns}/${agentName}`;
  const sts = view.statefulSets.byIndex(BY_AGENT, key)[0];
  if (sts) return { kind: 'StatefulSet', obj: sts };
  const dep = view.deployments.byIndex(BY_AGENT, key)[0];
  return dep ? { kind: 'Deployment', obj: dep } : undefined;
}

export function integrationForSecret(
  view: ClusterView,
  ns: string,
  secretName: string,
): IntegrationObject | undefined {
  return integrationsOfSecret(view, ns, secretName)[0];
}
