// Pure: maintaining metav1.Condition lists the way Kubernetes controllers do.
import type { Condition } from '../../cluster/crds/conditions.ts';

export type NewCondition = Omit<Condition, 'lastTransitionTime'>;

/** Sets a condition, keeping lastTransitionTime unless the status actually changed. */
export function setCondition(
  list: readonly Condition[] | undefined,
  next: NewCondition,
  now: Date,
): Condition[] {
  const current = list ?? [];
  const old = current.find((c) => c.type === next.type);
  const transitioned = !old || old.status !== next.status;
  const merged: Condition = {
    ...next,
    lastTransitionTime: transitioned ? now.toISOString() : (old?.lastTransitionTime ?? now.toISOString()),
  };
  return [...current.filter((c) => c.type !== next.type), merged].sort((a, b) =>
    a.type.localeCompare(b.type),
  );
}

/** True when two lists say the same thing (timestamps aside): a status write would be a no-op. */
export function sameConditions(
  a: readonly Condition[] | undefined,
  b: readonly Condition[] | undefined,
): boolean {
  // Fields in a fixed order: objects read back from the API server need not keep ours.
  const norm = (l: readonly Condition[] | undefined) =>
    JSON.stringify(
      [...(l ?? [])]
        .sort((x, y) => x.type.localeCompare(y.type))
        .map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration ?? null]),
    );
  return norm(a) === norm(b);
}

/** Drops a condition that no longer applies (a check that was turned off). */
export function removeCondition(list: readonly Condition[] | undefined, type: string): Condition[] {
  return (list ?? []).filter((c) => c.type !== type);
}
