// Server-side apply under one field manager: the API server merges our fields with everyone else's
// and removes the fields we stop sending.
import { type KubeConfig, type KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';

const APPLY_PATCH = 'application/apply-patch+yaml';

export interface Applier {
  apply<T extends KubernetesObject>(obj: T): Promise<T>;
  /** The same apply, validated and merged by the API server but not stored (dryRun=All). */
  dryRun<T extends KubernetesObject>(obj: T): Promise<T>;
  /** The live object, managedFields included (the caches may trim them). */
  read<T extends KubernetesObject>(ref: T): Promise<T>;
  /** Counts API writes, for metrics and for the no-op resync benchmark. */
  readonly writes: number;
}

export function serverSideApplier(kc: KubeConfig, fieldManager: string): Applier {
  const api = kc.makeApiClient(KubernetesObjectApi);
  let writes = 0;
  // force: Colony is the authority for the fields it applies (an injected variable must win).
  const patch = async <T extends KubernetesObject>(obj: T, dryRun?: 'All') =>
    (await api.patch(obj, undefined, dryRun, fieldManager, true, APPLY_PATCH)) as T;
  return {
    async apply<T extends KubernetesObject>(obj: T): Promise<T> {
      writes++;
      return patch(obj);
    },
    dryRun: (obj) => patch(obj, 'All'),
    read: async <T extends KubernetesObject>(ref: T) => (await api.read(ref as never)) as T,
    get writes() {
      return writes;
    },
  };
}
