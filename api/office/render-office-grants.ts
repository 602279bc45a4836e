// Offices mode: the RoleBindings that give Colony its rights in one office namespace, one per grant
// (a ClusterRole for a ServiceAccount), each named after its ClusterRole.
import type { V1Namespace, V1RoleBinding } from '@kubernetes/client-node';
import { LABEL_MANAGED_BY, LABEL_OFFICE, MANAGED_BY } from '../../cluster/labels.ts';
import type { OfficeGrant } from '../config.ts';

/** The longest office ID whose default namespace name, office-<id>, is still a DNS label. */
export const MAX_DEFAULT_OFFICE_ID = 63 - 'office-'.length;

export function officeNamespaceObject(officeId: string): V1Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: `office-${officeId}`,
      labels: { [LABEL_OFFICE]: officeId, [LABEL_MANAGED_BY]: MANAGED_BY },
    },
  };
}

export function officeRoleBindings(
  namespace: string,
  officeId: string,
  grants: readonly OfficeGrant[],
): V1RoleBinding[] {
  return grants.map((g) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name: g.clusterRole,
      namespace,
      labels: { [LABEL_OFFICE]: officeId, [LABEL_MANAGED_BY]: MANAGED_BY },
    },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: g.clusterRole },
    subjects: [
      { kind: 'ServiceAccount', name: g.serviceAccount.name, namespace: g.serviceAccount.namespace },
    ],
  }));
}
