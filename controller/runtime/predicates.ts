// Event filters for a controller's watches, as controller-runtime's predicates: each may veto a
// create, an update or a delete; a missing method lets that event through.
import type { KubernetesObject } from '@kubernetes/client-node';

export interface Predicate<T> {
  create?(obj: T): boolean;
  update?(obj: T, old: T): boolean;
  delete?(obj: T): boolean;
}

/**
 * Whether an update can change what the reconcilers decide: the spec (generation), labels,
 * annotations or deletion. Status-only updates, including the ones our own status writes and the
 * workload controllers cause, are skipped. A resync delivers the same object twice and always counts.
 */
export function worthReconciling(obj: KubernetesObject, old: KubernetesObject): boolean {
  if (obj === old) return true;
  const a = obj.metadata;
  const b = old.metadata;
  return (
    a?.generation !== b?.generation ||
    a?.deletionTimestamp !== b?.deletionTimestamp ||
    JSON.stringify(a?.labels ?? {}) !== JSON.stringify(b?.labels ?? {}) ||
    JSON.stringify(a?.annotations ?? {}) !== JSON.stringify(b?.annotations ?? {})
  );
}

/** Updates that change the spec, labels, annotations or deletion (see worthReconciling). */
export const specOrMetadataChanged: Predicate<KubernetesObject> = { update: worthReconciling };

/** Updates where `read` gives another value (compared as JSON): a piece of status that matters. */
export const changed = <T>(read: (obj: T) => unknown): Predicate<T> => ({
  update: (obj, old) => JSON.stringify(read(obj)) !== JSON.stringify(read(old)),
});

/** Events the object carries label `key` for (on an update, the new object). */
export const labelPresent = (key: string): Predicate<KubernetesObject> => {
  const has = (o: KubernetesObject) => !!o.metadata?.labels?.[key];
  return { create: has, update: has, delete: has };
};

/** Updates only: creates and deletes are left to other watches. */
export const updatesOnly: Predicate<unknown> = { create: () => false, delete: () => false };

/** Lets an event through when any of the predicates does. */
export function anyOf<T>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => predicates.some((p) => p.create?.(obj) ?? true),
    update: (obj, old) => predicates.some((p) => p.update?.(obj, old) ?? true),
    delete: (obj) => predicates.some((p) => p.delete?.(obj) ?? true),
  };
}
