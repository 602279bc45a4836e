// The controller's read model: informer caches of everything the reconcilers look at.
import type {
  KubernetesObject,
  V1Deployment,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { AgentBindingObject, IntegrationObject } from '../../api/office/office-cluster.ts';
import { LABEL_AGENT } from '../render/labels.ts';
import type { Informer } from '../runtime/informer.ts';

export interface ClusterView {
  bindings: Informer<AgentBindingObject>;
  integrations: Informer<IntegrationObject>;
  secrets: Informer<V1Secret>;
  deployments: Informer<V1Deployment>;
  statefulSets: Informer<V1StatefulSet>;
  /** Per-office service Deployments and Services (labelled colony.ai/integration). */
  serviceDeployments: Informer<V1Deployment>;
  services: Informer<V1Service>;
}

const inNamespace = (ns: string) => (o: KubernetesObject) => o.metadata?.namespace === ns;

export function bindingsOfAgent(view: ClusterView, ns: string, agentName: string): AgentBindingObject[] {
  return view.bindings.list().filter((b) => inNamespace(ns)(b) && b.spec.agentName === agentName);
}

export function agentWorkload(
  view: ClusterView,
  ns: string,
  agentName: string,
): { kind: 'Deployment' | 'StatefulSet'; obj: V1Deployment | V1StatefulSet } | undefined {
  const labelled = (o: KubernetesObject) =>
    inNamespace(ns)(o) && o.metadata?.labels?.[LABEL_AGENT] === agentName;
  const sts = view.statefulSets.list().find(labelled);
  if (sts) return { kind: 'StatefulSet', obj: sts };
  const dep = view.deployments.list().find(labelled);
  return dep ? { kind: 'Deployment', obj: dep } : undefined;
}

export function integrationForSecret(
  view: ClusterView,
  ns: string,
  secretName: string,
): IntegrationObject | undefined {
  return view.integrations.list().find((i) => inNamespace(ns)(i) && i.spec.secretName === secretName);
}
