// What the reconcilers read of each cached kind, and nothing more: the informers pass every object
// through these before caching it. A reconciler that starts reading another field adds it here
// (the unit tests list each kind's kept fields). Cached objects are never written back: every write
// is a server-side apply of an object rendered afresh, so a trimmed copy cannot clear a field.
import type {
  KubernetesObject,
  V1Container,
  V1ContainerStatus,
  V1Deployment,
  V1Pod,
  V1PodTemplateSpec,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import { pick, stripMetadata, trimMetadata } from '../runtime/cache-transform.ts';

const head = (o: KubernetesObject) => ({
  ...pick(o, ['apiVersion', 'kind']),
  metadata: trimMetadata(o.metadata),
});

/** Spec and status are read whole (conditions, credential check, OAuth state); only metadata shrinks. */
export const cachedBinding = (b: AgentBindingObject): AgentBindingObject => stripMetadata(b);
export const cachedIntegration = (i: IntegrationObject): IntegrationObject => stripMetadata(i);

/** Data is read: required keys, credential files and checks render from it, the database URL too. */
export const cachedSecret = (s: V1Secret): V1Secret => ({ ...head(s), ...pick(s, ['type', 'data']) });

/** Each container's name and env: the agent container is found by name, its env compared entry by entry. */
function cachedTemplate(t: V1PodTemplateSpec): V1PodTemplateSpec {
  const containers = (t.spec?.containers ?? []).map((c): V1Container => pick(c, ['name', 'env']));
  return {
    metadata: pick(t.metadata, ['labels', 'annotations']),
    spec: { containers },
  };
}

/**
 * An agent's Deployment or StatefulSet: metadata (annotations say what was applied, uid owns the
 * config ConfigMap), the template's labels, annotations and container env, and the status (small,
 * and where a rollout that cannot create pods shows).
 */
export function cachedWorkload<T extends V1Deployment | V1StatefulSet>(w: T): T {
  const spec = w.spec;
  return {
    ...head(w),
    ...(spec ? { spec: { selector: spec.selector, template: cachedTemplate(spec.template) } } : {}),
    ...pick(w as V1Deployment | V1StatefulSet, ['status']),
  } as T;
}

/** A per-office service's Deployment: its spec-hash annotation and readiness, not its pod template. */
export const cachedServiceDeployment = (d: V1Deployment): V1Deployment => ({
  ...head(d),
  ...pick(d, ['status']),
});

/** A per-office Service: only that it exists. */
export const cachedService = (s: V1Service): V1Service => head(s);

const cachedContainerStatus = (s: V1ContainerStatus): V1ContainerStatus =>
  pick(s, ['name', 'image', 'imageID', 'ready', 'restartCount', 'state', 'lastState']);

const cachedRequests = (c: V1Container): V1Container => ({
  name: c.name,
  ...(c.resources?.requests ? { resources: { requests: c.resources.requests } } : {}),
});

const runState = (s: V1ContainerStatus): V1ContainerStatus =>
  ({
    name: s.name,
    ...(s.state?.terminated ? { state: { terminated: pick(s.state.terminated, ['finishedAt']) } } : {}),
  }) as V1ContainerStatus;

/**
 * An agent pod: labels and the init containers' outcomes (a failed colony-init is reported), and for
 * the usage meter its containers' requests, its start time and when its containers finished.
 */
export const cachedPod = (p: V1Pod): V1Pod => ({
  ...head(p),
  ...(p.spec ? { spec: { containers: p.spec.containers.map(cachedRequests) } } : {}),
  status: {
    ...pick(p.status, ['phase', 'startTime']),
    ...(p.status?.initContainerStatuses
      ? { initContainerStatuses: p.status.initContainerStatuses.map(cachedContainerStatus) }
      : {}),
    ...(p.status?.containerStatuses ? { containerStatuses: p.status.containerStatuses.map(runState) } : {}),
  },
});
