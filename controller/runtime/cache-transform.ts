// Generic cache transforms: the metadata a cached object keeps once what only the API server and
// kubectl need is gone (controller-runtime's TransformStripManagedFields, made an allow-list).
import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';

/** kubectl's copy of the whole object it last applied: often the largest annotation by far. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const KEPT_METADATA = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'labels',
  'ownerReferences',
  'finalizers',
] as const satisfies readonly (keyof V1ObjectMeta)[];

/** Copies the named keys that are present; absent ones stay absent rather than becoming undefined. */
export function pick<T extends object, K extends keyof T>(
  obj: T | undefined,
  keys: readonly K[],
): Pick<T, K> {
  const out = {} as Pick<T, K>;
  if (!obj) return out;
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/**
 * Metadata without managedFields, selfLink, generateName and kubectl's last-applied annotation.
 * A cached object is only ever read: every write is a server-side apply of a freshly rendered object.
 */
export function trimMetadata(meta: V1ObjectMeta | undefined): V1ObjectMeta {
  const out: V1ObjectMeta = pick(meta, KEPT_METADATA);
  const annotations = meta?.annotations;
  if (annotations) {
    const { [LAST_APPLIED]: _dropped, ...rest } = annotations;
    out.annotations = rest;
  }
  return out;
}

/** The object with its metadata trimmed and everything else as it came (CRs, which are small). */
export function stripMetadata<T extends KubernetesObject>(obj: T): T {
  return { ...obj, metadata: trimMetadata(obj.metadata) };
}
