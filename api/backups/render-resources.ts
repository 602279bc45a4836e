// Pure: what part 1 of a snapshot records, the per-snapshot Secret, and the objects a restore applies.
import type { KubernetesObject, V1Secret } from '@kubernetes/client-node';
import { LABEL_MANAGED_BY, LABEL_OFFICE, MANAGED_BY } from '../../cluster/labels.ts';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';

export const LABEL_SNAPSHOT = 'colony.ai/snapshot';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';

interface CapturedObject {
  name: string;
  labels: Record<string, string>;
  spec: unknown;
}

/** Stored in the blob store: specs, and for Secrets only their names and key names. */
export interface ResourcesManifest {
  version: 1;
  integrations: CapturedObject[];
  agentBindings: CapturedObject[];
  secretNames: string[];
  secrets?: { name: string; keys: string[] }[];
}

/** One captured Secret; `data` is base64 as the API server returns it. */
export interface SecretCopy {
  name: string;
  type: string;
  labels: Record<string, string>;
  data: Record<string, string>;
}

const captured = (o: IntegrationObject | AgentBindingObject): CapturedObject => ({
  name: o.metadata?.name ?? '',
  labels: o.metadata?.labels ?? {},
  spec: o.spec,
});

/** Spec only: status belongs to the controller and is recomputed after a restore. */
export function capturedResources(
  integrations: readonly IntegrationObject[],
  bindings: readonly AgentBindingObject[],
): ResourcesManifest {
  const byName = (a: CapturedObject, b: CapturedObject) => a.name.localeCompare(b.name);
  const secretNames = new Set<string>();
  for (const o of [...integrations, ...bindings]) if (o.spec.secretName) secretNames.add(o.spec.secretName);
  return {
    version: 1,
    integrations: integrations.map(captured).sort(byName),
    agentBindings: bindings.map(captured).sort(byName),
    secretNames: [...secretNames].sort(),
  };
}

/**
 * One immutable Secret per snapshot; each data key is a captured Secret's name (Secret names are
 * valid data keys) and its value that Secret's type, labels and data as JSON.
 */
export function renderSnapshotSecret(args: {
  name: string;
  namespace: string;
  officeId: string;
  snapshotId: string;
  copies: readonly SecretCopy[];
}): V1Secret {
  const data: Record<string, string> = {};
  for (const c of args.copies) {
    data[c.name] = Buffer.from(JSON.stringify({ type: c.type, labels: c.labels, data: c.data })).toString(
      'base64',
    );
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    immutable: true,
    metadata: {
      name: args.name,
      namespace: args.namespace,
      labels: {
        [LABEL_OFFICE]: args.officeId,
        [LABEL_SNAPSHOT]: args.snapshotId,
        [LABEL_COMPONENT]: 'snapshot',
        [LABEL_MANAGED_BY]: MANAGED_BY,
      },
    },
    data,
  };
}

/** Reads the captured Secrets back out of a per-snapshot Secret. */
export function secretCopies(held: V1Secret): SecretCopy[] {
  return Object.entries(held.data ?? {}).map(([name, value]) => {
    const parsed = JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as Omit<SecretCopy, 'name'>;
    return { name, type: parsed.type, labels: parsed.labels, data: parsed.data };
  });
}

/** Everything a restore applies, Secrets first so nothing references a Secret that is not there yet. */
export function restoredObjects(args: {
  manifest: ResourcesManifest;
  held: V1Secret;
  namespace: string;
  apiVersion: string;
}): KubernetesObject[] {
  const { namespace } = args;
  const secrets: V1Secret[] = secretCopies(args.held).map((c) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: c.type,
    metadata: { name: c.name, namespace, labels: c.labels },
    data: c.data,
  }));
  const custom = (kind: string) => (o: CapturedObject) =>
    ({
      apiVersion: args.apiVersion,
      kind,
      metadata: { name: o.name, namespace, labels: o.labels },
      spec: o.spec,
    }) as KubernetesObject;
  return [
    ...secrets,
    ...args.manifest.integrations.map(custom('Integration')),
    ...args.manifest.agentBindings.map(custom('AgentBinding')),
  ];
}

/** Labels every snapshot-owned object carries, for selection and clean-up. */
export const snapshotLabels = (officeId: string, snapshotId: string) => ({
  [LABEL_OFFICE]: officeId,
  [LABEL_SNAPSHOT]: snapshotId,
  [LABEL_MANAGED_BY]: MANAGED_BY,
});
