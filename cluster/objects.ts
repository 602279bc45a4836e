// The two Colony kinds as the cluster returns them: a Kubernetes object with its spec and status.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { AgentBindingSpec, AgentBindingStatus } from './crds/agent-binding-types.ts';
import type { IntegrationSpec, IntegrationStatus } from './crds/integration-types.ts';

export type IntegrationObject = KubernetesObject & { spec: IntegrationSpec; status?: IntegrationStatus };
export type AgentBindingObject = KubernetesObject & { spec: AgentBindingSpec; status?: AgentBindingStatus };
