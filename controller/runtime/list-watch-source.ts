// The real ListWatchSource: paginated lists and bookmark-enabled watches through @kubernetes/client-node.
import {
  ApiException,
  HttpMethod,
  type KubeConfig,
  type KubernetesObject,
  RequestContext,
  Watch,
} from '@kubernetes/client-node';
// client-node's dispatcher (TLS client certificates) belongs to this undici, not Node's bundled one.
import { fetch } from 'undici';
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

interface ListPage<T> {
  items: T[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/**
 * One page of a list, read as wire JSON. KubernetesObjectApi.list drops the `continue` token of
 * custom-resource lists when it deserialises them, so an informer built on it saw only the first
 * page of AgentBindings; the request itself goes through the same authentication as every other.
 */
async function listPage<T>(kc: KubeConfig, ref: ResourceRef, continueToken?: string): Promise<ListPage<T>> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster in the kubeconfig');
  const url = new URL(cluster.server + ref.path);
  url.searchParams.set('limit', String(ref.pageSize ?? PAGE_SIZE));
  if (ref.labelSelector) url.searchParams.set('labelSelector', ref.labelSelector);
  if (continueToken) url.searchParams.set('continue', continueToken);
  const ctx = new RequestContext(url.toString(), HttpMethod.GET);
  ctx.setHeaderParam('Accept', 'application/json');
  await kc.applySecurityAuthentication(ctx);
  const res = await fetch(url, { headers: ctx.getHeaders(), dispatcher: ctx.getDispatcher() });
  const body = await res.text();
  if (!res.ok) throw new ApiException(res.status, `list ${ref.path} failed`, body, {});
  return JSON.parse(body) as ListPage<T>;
}

export function listWatchSource<T extends KubernetesObject>(
  kc: KubeConfig,
  ref: ResourceRef,
): ListWatchSource<T> {
  const watcher = new Watch(kc);
  return {
    async list(continueToken) {
      const page = await listPage<T>(kc, ref, continueToken);
      const next = page.metadata?.continue;
      return {
        items: page.items.map((o) => ({ ...o, apiVersion: ref.apiVersion, kind: ref.kind })),
        resourceVersion: page.metadata?.resourceVersion ?? '',
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
