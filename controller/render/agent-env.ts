// Pure: the part of an agent workload Colony owns: one env entry per injected variable, each a
// secretKeyRef, plus a checksum annotation. Applied with server-side apply under one field
// manager, so dropping an entry from this object removes exactly that entry from the workload.
import { createHash } from 'node:crypto';
import type { V1EnvVar } from '@kubernetes/client-node';
import { isReservedEnvKey } from '../../integrations/registry/reserved-keys.ts';
import { ANNOTATION_CHECKSUM, ANNOTATION_INJECTED } from './labels.ts';

export interface Injection {
  integrationId: string;
  secretName: string;
  /** resourceVersion of the Secret: it changes exactly when the credentials are re-saved. */
  secretVersion: string;
  envVars: string[];
  /** Plain values, such as the in-cluster URL of a per-office service. */
  values?: Record<string, string>;
}

export interface AgentWorkloadRef {
  apiVersion: 'apps/v1';
  kind: 'Deployment' | 'StatefulSet';
  name: string;
  namespace: string;
  container: string;
}

/** The env entries for a set of injections; sorted so the same input always renders the same bytes. */
export function renderEnv(injections: readonly Injection[]): V1EnvVar[] {
  const env = new Map<string, V1EnvVar>();
  const sorted = [...injections].sort((a, b) => a.integrationId.localeCompare(b.integrationId));
  for (const inj of sorted) {
    for (const name of inj.envVars) {
      if (isReservedEnvKey(name) || env.has(name)) continue;
      env.set(name, { name, valueFrom: { secretKeyRef: { name: inj.secretName, key: name } } });
    }
    for (const [name, value] of Object.entries(inj.values ?? {})) {
      if (!isReservedEnvKey(name) && !env.has(name)) env.set(name, { name, value });
    }
  }
  return [...env.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** A hash of which secrets, at which versions, are injected; never of their contents. */
export function credentialsChecksum(injections: readonly Injection[]): string {
  const parts = [...injections]
    .map((i) => `${i.secretName}@${i.secretVersion}:${[...i.envVars].sort().join(',')}`)
    .sort();
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
}

/** The server-side apply body for the workload: only the fields Colony owns. */
export function renderAgentEnvApply(ref: AgentWorkloadRef, injections: readonly Injection[]) {
  const env = renderEnv(injections);
  const workloadAnnotations: Record<string, string> = {};
  const templateAnnotations: Record<string, string> = {};
  if (env.length > 0) {
    workloadAnnotations[ANNOTATION_INJECTED] = env.map((e) => e.name).join(',');
    templateAnnotations[ANNOTATION_CHECKSUM] = credentialsChecksum(injections);
  }
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      // Which names Colony injected, so a later reconcile can tell a no-op from a change cheaply.
      annotations: workloadAnnotations,
    },
    spec: {
      template: {
        metadata: {
          annotations: templateAnnotations,
        },
        // With nothing to inject the container entry carries no env: the apply then releases every
        // entry Colony owned, and the API server removes them.
        spec: { containers: [env.length > 0 ? { name: ref.container, env } : { name: ref.container }] },
      },
    },
  };
}
