// The real ListWatchSource: paginated lists and bookmark-enabled watches through @kubernetes/client-node.
import { type KubeConfig, type KubernetesObject, KubernetesObjectApi, Watch } from '@kubernetes/client-node';
import type { ListWatchSource, WatchPhase } from './informer.ts';

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  /** REST path of the collection, e.g. `/apis/colony.ai/v1alpha1/agentbindings`. */
  path: string;
  namespace?: string;
  labelSelector?: string;
  /** Objects per list page (500, as client-go's reflector asks for). */
  pageSize?: number;
}

const PAGE_SIZE = 500;

// KubernetesObjectApi.list hands back the wire JSON, where the token is `continue`; the typed
// clients rename it `_continue`. Accept both so a paged list never stops after its first page.
const continueOf = (meta: { _continue?: string; continue?: string } | undefined) =>
  meta?._continue ?? meta?.continue;

export function listWatchSource<T extends KubernetesObject>(
  kc: KubeConfig,
  ref: ResourceRef,
): ListWatchSource<T> {
  const api = kc.makeApiClient(KubernetesObjectApi);
  const watcher = new Watch(kc);
  return {
    async list(continueToken) {
      const res = await api.list<T>(
        ref.apiVersion,
        ref.kind,
        ref.namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        ref.labelSelector,
        ref.pageSize ?? PAGE_SIZE,
        continueToken,
      );
      const next = continueOf(res.metadata);
      return {
        items: res.items.map((o) => ({ ...o, apiVersion: ref.apiVersion, kind: ref.kind })),
        resourceVersion: res.metadata?.resourceVersion ?? '',
        ...(next ? { continueToken: next } : {}),
      };
    },
    async watch(resourceVersion, onEvent, done) {
      // The server ends the watch before the client's 30 s inactivity timeout would.
      const timeoutSeconds = 20 + Math.floor(Math.random() * 8);
      const controller = await watcher.watch(
        ref.path,
        { resourceVersion, allowWatchBookmarks: true, timeoutSeconds, labelSelector: ref.labelSelector },
        (phase: string, obj: T & { code?: number }) => onEvent(phase as WatchPhase, obj),
        done,
      );
      return { abort: () => controller.abort() };
    },
  };
}
