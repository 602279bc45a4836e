// Pure: the part of an agent workload Colony owns: one env entry per injected variable, each a
// secretKeyRef, plus a checksum annotation. Applied with server-side apply under one field
// manager, so dropping an entry from this object removes exactly that entry from the workload.
import { createHash } from 'node:crypto';
import type { V1EnvVar } from '@kubernetes/client-node';
import {
  ANNOTATION_APPLIED,
  ANNOTATION_CHECKSUM,
  ANNOTATION_INJECTED,
  LABEL_AGENT,
} from '../../cluster/labels.ts';
import { isReservedEnvKey } from '../../integrations/registry/reserved-keys.ts';
import type { AgentLayers } from './agent-layers.ts';

export interface Injection {
  integrationId: string;
  secretName: string;
  /** resourceVersion of the Secret: it changes exactly when the credentials are re-saved. */
  secretVersion: string;
  envVars: string[];
  /** Plain values, such as the in-cluster URL of a per-office service. */
  values?: Record<string, string>;
  /** The env names a Secret key or value goes under, when not its own (instances of one integration). */
  envNames?: Readonly<Record<string, readonly string[]>>;
}

const namesOf = (inj: Injection, source: string) => inj.envNames?.[source] ?? [source];

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
  // The first claim of a name wins; reserved names are never injected.
  const put = (name: string, entry: Omit<V1EnvVar, 'name'>) => {
    if (!isReservedEnvKey(name) && !env.has(name)) env.set(name, { name, ...entry });
  };
  const sorted = [...injections].sort((a, b) => a.integrationId.localeCompare(b.integrationId));
  for (const inj of sorted) {
    for (const key of inj.envVars)
      for (const name of namesOf(inj, key))
        put(name, { valueFrom: { secretKeyRef: { name: inj.secretName, key } } });
    for (const [key, value] of Object.entries(inj.values ?? {}))
      for (const name of namesOf(inj, key)) put(name, { value });
  }
  return [...env.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** A hash of which secrets, at which versions, are injected; never of their contents. */
export function credentialsChecksum(injections: readonly Injection[], extra: readonly string[] = []): string {
  const parts = [
    ...injections.map(
      (i) =>
        `${i.secretName}@${i.secretVersion}:${i.envVars
          .flatMap((k) => namesOf(i, k).map((n) => (n === k ? k : `${k}>${n}`)))
          .sort()
          .join(',')}`,
    ),
    ...extra,
  ].sort();
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
}

export const NO_LAYERS: AgentLayers = {
  volumes: [],
  mounts: [],
  initContainer: undefined,
  config: undefined,
  checksumParts: [],
};

/** A hash of everything the apply body says, kept on the workload so a no-op reconcile writes nothing. */
export function appliedHash(
  injections: readonly Injection[],
  layers: AgentLayers,
  held: readonly string[] = [],
): string {
  const body = JSON.stringify([
    renderEnv(injections),
    credentialsChecksum(injections, layers.checksumParts),
    layers.volumes,
    layers.mounts,
    layers.initContainer ?? null,
    ...(held.length > 0 ? [[...held].sort()] : []),
  ]);
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

/**
 * The server-side apply body for the workload: only the fields Colony owns. `held` names env
 * entries an owner has given a value of their own: applied by name alone, so the entry Colony
 * created stays (with the owner's value) instead of being removed with Colony's reference.
 * `ref.agentName`, when given, is put on the pod template as `colony.ai/agent`.
 */
export function renderAgentEnvApply(
  ref: AgentWorkloadRef & { agentName?: string },
  injections: readonly Injection[],
  layers: AgentLayers = NO_LAYERS,
  held: readonly string[] = [],
) {
  const injected = renderEnv(injections);
  const names = new Set(injected.map((e) => e.name));
  const env = [...injected, ...held.filter((n) => !names.has(n)).map((name) => ({ name }))].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  const workloadAnnotations: Record<string, string> = {};
  const templateAnnotations: Record<string, string> = {};
  const owned = env.length > 0 || layers.volumes.length > 0 || !!layers.initContainer;
  if (owned) {
    workloadAnnotations[ANNOTATION_INJECTED] = injected.map((e) => e.name).join(',');
    workloadAnnotations[ANNOTATION_APPLIED] = appliedHash(injections, layers, held);
    templateAnnotations[ANNOTATION_CHECKSUM] = credentialsChecksum(injections, layers.checksumParts);
  }
  const container: Record<string, unknown> = { name: ref.container };
  if (env.length > 0) container.env = env;
  if (layers.mounts.length > 0) container.volumeMounts = layers.mounts;
  const podSpec: Record<string, unknown> = { containers: [container] };
  if (layers.volumes.length > 0) podSpec.volumes = layers.volumes;
  if (layers.initContainer) podSpec.initContainers = [layers.initContainer];
  // Every agent pod carries its agent's label: the usage meter counts those pods, and a failed
  // colony-init is read back from them. An added label keeps the template matching its selector.
  const templateLabels = ref.agentName ? { [LABEL_AGENT]: ref.agentName } : {};
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
        metadata: { annotations: templateAnnotations, labels: templateLabels },
        // With nothing to inject the container entry carries nothing else: the apply then releases
        // every field Colony owned, and the API server removes them.
        spec: podSpec,
      },
    },
  };
}
