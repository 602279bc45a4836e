// Pure: who else owns a field Colony wants in an agent container. An owner who replaced an injected
// secretKeyRef with a plain value (kubectl edit, another controller) makes a forced apply invalid,
// since one env entry cannot carry both; such names are held back and reported instead.
import type { KubernetesObject, V1Container, V1EnvVar } from '@kubernetes/client-node';
import { FIELD_MANAGER } from '../../cluster/labels.ts';

/** The names whose current entry holds the other form (value vs valueFrom) from the one we render. */
export function formClashes(container: V1Container, desired: readonly V1EnvVar[]): string[] {
  const current = new Map((container.env ?? []).map((e) => [e.name, e]));
  return desired.flatMap((d) => {
    const c = current.get(d.name);
    if (!c) return [];
    const wantsRef = d.valueFrom !== undefined;
    const hasValue = c.value !== undefined && c.value !== '';
    return (wantsRef && hasValue) || (!wantsRef && c.valueFrom !== undefined) ? [d.name] : [];
  });
}

type FieldsV1 = Record<string, unknown>;
const at = (f: unknown, key: string) => (f as FieldsV1 | undefined)?.[key] as FieldsV1 | undefined;

/** Managers other than Colony's that own the env entry `name` of `container`, as "manager (Operation)". */
export function envOwners(obj: KubernetesObject, container: string, name: string): string[] {
  return (obj.metadata?.managedFields ?? []).flatMap((m) => {
    if (m.manager === FIELD_MANAGER) return [];
    const spec = at(at(at(at(m.fieldsV1, 'f:spec'), 'f:template'), 'f:spec'), 'f:containers');
    const entry = at(
      at(at(spec, `k:{"name":${JSON.stringify(container)}}`), 'f:env'),
      `k:{"name":${JSON.stringify(name)}}`,
    );
    if (!entry || !(at(entry, 'f:value') || at(entry, 'f:valueFrom'))) return [];
    return [`${m.manager ?? 'unknown'} (${m.operation ?? 'Update'})`];
  });
}
