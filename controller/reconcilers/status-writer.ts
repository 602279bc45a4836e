// Writes the status subresource of our custom resources with server-side apply.
import { CustomObjectsApi, type KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { API_VERSION, GROUP, VERSION } from '../../cluster/crds/crds.ts';

export interface StatusWriter {
  write(
    kind: 'Integration' | 'AgentBinding',
    namespace: string,
    name: string,
    status: unknown,
  ): Promise<void>;
  readonly writes: number;
}

export function statusWriter(kc: KubeConfig, fieldManager: string): StatusWriter {
  const api = kc.makeApiClient(CustomObjectsApi);
  const options = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
  let writes = 0;
  return {
    async write(kind, namespace, name, status) {
      writes++;
      const plural = kind === 'Integration' ? 'integrations' : 'agentbindings';
      await api.patchNamespacedCustomObjectStatus(
        {
          group: GROUP,
          version: VERSION,
          namespace,
          plural,
          name,
          body: { apiVersion: API_VERSION, kind, metadata: { name, namespace }, status },
          fieldManager,
          force: true,
        },
        options,
      );
    },
    get writes() {
      return writes;
    },
  };
}
