// The informers behind the controller's ClusterView: one per kind the reconcilers read, watching
// all namespaces, one namespace, or each office namespace on its own.
import type {
  KubeConfig,
  KubernetesObject,
  V1Deployment,
  V1Namespace,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { API_VERSION } from '../cluster/crds/crds.ts';
import { LABEL_AGENT, LABEL_INTEGRATION, LABEL_MANAGED_BY, MANAGED_BY } from '../cluster/labels.ts';
import {
  cachedBinding,
  cachedIntegration,
  cachedPod,
  cachedSecret,
  cachedService,
  cachedServiceDeployment,
  cachedWorkload,
} from './reconcilers/cached-fields.ts';
import { type ClusterView, indexClusterView } from './reconcilers/cluster-view.ts';
import { Informer } from './runtime/informer.ts';
import { listWatchSource } from './runtime/list-watch-source.ts';
import { MultiNamespaceInformer, type SharedInformer } from './runtime/multi-namespace-informer.ts';

export interface ViewInformerOptions {
  kc: KubeConfig;
  resyncMs?: number | undefined;
  /** Watch one namespace only (namespaced mode); all namespaces when unset. */
  namespace?: string | undefined;
  /** Watch only the namespaces this label selector matches, each on its own (offices mode). */
  namespaceSelector?: string | undefined;
  /** Cache only the fields the reconcilers read (default on). */
  trimCache?: boolean | undefined;
  /** A failed list or watch, named by its informer (`informer secrets in office-acme`). */
  onError(source: string, err: unknown): void;
}

type Resource = [apiVersion: string, kind: string, plural: string];

/** Builds the informers (not started) and registers the indexes the reconcilers look up by. */
export function clusterViewInformers(opts: ViewInformerOptions): ClusterView {
  const trim = opts.trimCache ?? true;
  const informer = <T extends KubernetesObject>(
    [apiVersion, kind, plural]: Resource,
    labelSelector: string | undefined,
    namespace: string | undefined,
    onError: (err: unknown) => void,
    transform: ((obj: T) => T) | undefined,
  ) => {
    const prefix = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
    const path = namespace ? `${prefix}/namespaces/${namespace}/${plural}` : `${prefix}/${plural}`;
    const ref = {
      apiVersion,
      kind,
      path,
      ...(namespace ? { namespace } : {}),
      ...(labelSelector ? { labelSelector } : {}),
    };
    return new Informer<T>(listWatchSource<T>(opts.kc, ref), {
      resyncMs: opts.resyncMs ?? 300_000,
      onError,
      ...(transform ? { transform } : {}),
    });
  };
  // Offices mode: the namespaces to watch, one informer per namespace and resource.
  const selected = opts.namespaceSelector
    ? new Informer<V1Namespace>(
        listWatchSource<V1Namespace>(opts.kc, {
          apiVersion: 'v1',
          kind: 'Namespace',
          path: '/api/v1/namespaces',
          labelSelector: opts.namespaceSelector,
        }),
        { onError: (err) => opts.onError('informer namespaces', err) },
      )
    : undefined;
  const inf = <T extends KubernetesObject>(
    resource: Resource,
    transform: (obj: T) => T,
    labelSelector?: string,
  ): SharedInformer<T> => {
    const plural = resource[2];
    // A list the RBAC forbids would otherwise retry in silence and leave readiness at "syncing".
    const onError = (err: unknown) => opts.onError(`informer ${plural}`, err);
    const t = trim ? transform : undefined;
    if (!selected) return informer<T>(resource, labelSelector, opts.namespace, onError, t);
    return new MultiNamespaceInformer<T>({
      namespaces: selected,
      create: (ns, failed) => informer<T>(resource, labelSelector, ns, failed, t),
      onError: (ns, err) => opts.onError(`informer ${plural} in ${ns}`, err),
    });
  };
  const owned = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;
  const view: ClusterView = {
    bindings: inf([API_VERSION, 'AgentBinding', 'agentbindings'], cachedBinding),
    integrations: inf([API_VERSION, 'Integration', 'integrations'], cachedIntegration),
    secrets: inf(['v1', 'Secret', 'secrets'], cachedSecret, owned),
    deployments: inf<V1Deployment>(['apps/v1', 'Deployment', 'deployments'], cachedWorkload, LABEL_AGENT),
    statefulSets: inf<V1StatefulSet>(['apps/v1', 'StatefulSet', 'statefulsets'], cachedWorkload, LABEL_AGENT),
    serviceDeployments: inf(
      ['apps/v1', 'Deployment', 'deployments'],
      cachedServiceDeployment,
      `${owned},${LABEL_INTEGRATION}`,
    ),
    services: inf(['v1', 'Service', 'services'], cachedService, `${owned},${LABEL_INTEGRATION}`),
    pods: inf(['v1', 'Pod', 'pods'], cachedPod, LABEL_AGENT),
  };
  indexClusterView(view);
  return view;
}
