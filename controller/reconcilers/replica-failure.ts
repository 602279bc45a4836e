// Pure: a Deployment's own word that its ReplicaSet cannot create pods (Pod Security, a quota, a
// missing ServiceAccount). StatefulSets have no such condition; their refusals are Events only.
import type { V1Deployment, V1StatefulSet } from '@kubernetes/client-node';

/** The ReplicaFailure condition in words, or undefined when pods can be created. */
export function replicaFailure(w: V1Deployment | V1StatefulSet | undefined): string | undefined {
  const c = w?.status?.conditions?.find((x) => x.type === 'ReplicaFailure' && x.status === 'True');
  return c ? `${c.reason ?? 'ReplicaFailure'}: ${(c.message ?? '').slice(0, 400)}` : undefined;
}
