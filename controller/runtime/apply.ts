// Server-side apply under one field manager: the API server merges our fields with everyone else's
// and removes the fields we stop sending.
import { type KubeConfig, type KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';

const APPLY_PATCH = 'application/apply-patch+yaml';

export interface Applier {
  apply<T extends KubernetesObject>(obj: T): Promise<T>;
  /** Counts API writes, for metrics and for the no-op resync benchmark. */
  readonly writes: number;
}

export function serverSideApplier(kc: KubeConfig, fieldManager: string): Applier {
  const api = kc.makeApiClient(KubernetesObjectApi);
  let writes = 0;
  return {
    async apply<T extends KubernetesObject>(obj: T): Promise<T> {
      writes++;
      // force: Colony is the authority for the fields it applies (an injected variable must win).
      return (await api.patch(obj, undefined, undefined, fieldManager, true, APPLY_PATCH)) as T;
    },
    get writes() {
      return writes;
    },
  };
}
