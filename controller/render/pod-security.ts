// The securityContexts of what Colony adds to pods: the agents' colony-init container and the
// per-office service pods. The defaults meet the `restricted` Pod Security Standard, so an office
// namespace that enforces it admits them; an admin may replace them (COLONY_*_SECURITY_CONTEXT),
// as the Vault injector lets its agent's be replaced.
import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';

/** What `restricted` asks of every container; runAsNonRoot needs an image with a numeric non-root USER. */
export const RESTRICTED_CONTAINER: V1SecurityContext = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  runAsNonRoot: true,
  seccompProfile: { type: 'RuntimeDefault' },
};

/**
 * Service pods run images their manifests name, which often declare no user: they get a fixed
 * non-root uid, and fsGroup makes their volume writable to it.
 */
export const RESTRICTED_SERVICE_POD: V1PodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: 65532,
  runAsGroup: 65532,
  fsGroup: 65532,
  seccompProfile: { type: 'RuntimeDefault' },
};

export interface PodSecurity {
  initContainer: V1SecurityContext;
  serviceContainer: V1SecurityContext;
  servicePod: V1PodSecurityContext;
}

export const DEFAULT_POD_SECURITY: PodSecurity = {
  initContainer: RESTRICTED_CONTAINER,
  serviceContainer: RESTRICTED_CONTAINER,
  servicePod: RESTRICTED_SERVICE_POD,
};

/** The defaults with an admin's replacements: each replacement stands whole, as the Vault injector's do. */
export function podSecurityOf(given: Partial<PodSecurity> | undefined): PodSecurity {
  return {
    initContainer: given?.initContainer ?? DEFAULT_POD_SECURITY.initContainer,
    serviceContainer: given?.serviceContainer ?? DEFAULT_POD_SECURITY.serviceContainer,
    servicePod: given?.servicePod ?? DEFAULT_POD_SECURITY.servicePod,
  };
}
