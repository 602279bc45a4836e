// Informer on a real API server: list, watch, cache and handlers for ConfigMaps in one namespace;
// and the controller's caches holding only what its reconcilers read while they still converge.
import {
  AppsV1Api,
  CoreV1Api,
  type KubernetesObject,
  type V1ConfigMap,
  type V1StatefulSet,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { API_VERSION, GROUP, VERSION } from '../../cluster/crds/crds.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import type { AgentBindingObject } from '../../cluster/objects.ts';
import { ColonyController } from '../../controller/colony-controller.ts';
import {
  cachedBinding,
  cachedIntegration,
  cachedPod,
  cachedSecret,
  cachedWorkload,
} from '../../controller/reconcilers/cached-fields.ts';
import { LAST_APPLIED } from '../../controller/runtime/cache-transform.ts';
import { Informer } from '../../controller/runtime/informer.ts';
import { listWatchSource } from '../../controller/runtime/list-watch-source.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';

let ns: Awaited<ReturnType<typeof withNamespace>>;
const core = () => kubeConfig().makeApiClient(CoreV1Api);

beforeAll(async () => {
  ns = await withNamespace('informer');
});
afterAll(() => ns.dispose());

// Every namespace gets a kube-root-ca.crt ConfigMap; the label selector keeps it out.
const labels = { 'colony.ai/test': 'informer' };

describe('Informer on the real API server', () => {
  it('syncs existing objects, then sees creates, updates and deletes of the selected objects', async () => {
    await core().createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'before', labels }, data: { v: '1' } },
    });
    const inf = new Informer<V1ConfigMap>(
      listWatchSource(kubeConfig(), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        path: `/api/v1/namespaces/${ns.name}/configmaps`,
        namespace: ns.name,
        labelSelector: 'colony.ai/test=informer',
      }),
    );
    const events: string[] = [];
    inf.on({
      add: (o) => events.push(`add ${o.metadata?.name}`),
      update: (o) => events.push(`update ${o.metadata?.name} ${o.data?.v}`),
      delete: (o) => events.push(`delete ${o.metadata?.name}`),
    });
    inf.start();
    try {
      await inf.waitForSync();
      expect(inf.get(`${ns.name}/before`)?.data).toEqual({ v: '1' });
      await core().createNamespacedConfigMap({
        namespace: ns.name,
        body: { metadata: { name: 'after', labels }, data: { v: '1' } },
      });
      await core().patchNamespacedConfigMap({
        name: 'after',
        namespace: ns.name,
        body: [{ op: 'replace', path: '/data/v', value: '2' }],
      });
      await core().deleteNamespacedConfigMap({ name: 'before', namespace: ns.name });
      await eventually(async () => events.length >= 4);
      expect(events, JSON.stringify(events)).toEqual([
        'add before',
        'add after',
        'update after 2',
        'delete before',
      ]);
      expect(inf.list().map((o) => o.metadata?.name)).toEqual(['after']);
      expect(inf.get(`${ns.name}/after`)?.kind).toBe('ConfigMap');
    } finally {
      inf.stop();
    }
  });

  it('loads every page of a list that is longer than one page', async () => {
    const paged = { 'colony.ai/test': 'paged' };
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        core().createNamespacedConfigMap({
          namespace: ns.name,
          body: { metadata: { name: `page-${i}`, labels: paged }, data: { v: String(i) } },
        }),
      ),
    );
    const inf = new Informer<V1ConfigMap>(
      listWatchSource(kubeConfig(), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        path: `/api/v1/namespaces/${ns.name}/configmaps`,
        namespace: ns.name,
        labelSelector: 'colony.ai/test=paged',
        pageSize: 2,
      }),
    );
    inf.start();
    try {
      await inf.waitForSync();
      expect(inf.size).toBe(7);
      expect(inf.lists).toBe(1);
    } finally {
      inf.stop();
    }
  });

  it('pages through custom resources too (their list metadata carries the continue token)', async () => {
    await installCrds();
    const office = new OfficeCluster(kubeConfig());
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        office.saveBinding(
          ns.name,
          `agent-${i}-openai`,
          { agentName: `agent-${i}`, integrationId: 'openai', secretName: 'openai-acme', enabled: true },
          'acme',
        ),
      ),
    );
    const inf = new Informer<AgentBindingObject>(
      listWatchSource(kubeConfig(), {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'AgentBinding',
        path: `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/agentbindings`,
        namespace: ns.name,
        pageSize: 2,
      }),
    );
    inf.start();
    try {
      await inf.waitForSync();
      expect(inf.size).toBe(5);
      expect(inf.get(`${ns.name}/agent-4-openai`)?.spec.agentName).toBe('agent-4');
    } finally {
      inf.stop();
    }
  });
});

describe('ColonyController caches', () => {
  const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
  const apps = () => kubeConfig().makeApiClient(AppsV1Api);
  const office = 'acme';
  let own: Awaited<ReturnType<typeof withNamespace>>;
  beforeAll(async () => {
    own = await withNamespace('cache');
  });
  afterAll(() => own.dispose());

  /** The objects of one kind in the namespace, exactly as the API server sends them. */
  async function wire<T extends KubernetesObject>(apiVersion: string, kind: string, plural: string) {
    const prefix = apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`;
    const path = `${prefix}/namespaces/${own.name}/${plural}`;
    return (await listWatchSource<T>(kubeConfig(), { apiVersion, kind, path }).list()).items;
  }

  /** An agent as kubectl apply leaves it: a last-applied copy, and more than the controller reads. */
  function kubectlAppliedAgent(name: string): V1StatefulSet {
    const sts: V1StatefulSet = {
      metadata: { name, labels: { 'colony.ai/agent': name } },
      spec: {
        serviceName: name,
        replicas: 0,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            containers: [
              {
                name: 'agent',
                image: 'busybox',
                env: [{ name: 'OWN', value: '1' }],
                resources: { limits: { memory: '64Mi' } },
              },
            ],
            volumes: [{ name: 'scratch', emptyDir: {} }],
          },
        },
      },
    };
    return { ...sts, metadata: { ...sts.metadata, annotations: { [LAST_APPLIED]: JSON.stringify(sts) } } };
  }

  async function configureOpenai(secretName: string) {
    const cluster = new OfficeCluster(kubeConfig());
    const manifest = registry.get('openai');
    if (!manifest) throw new Error('openai is missing from the registry');
    await cluster.saveSecret(
      renderIntegrationSecret({
        manifest,
        officeId: office,
        namespace: own.name,
        secretName,
        data: { OPENAI_API_KEY: 'sk-cache' },
      }),
    );
    await cluster.saveIntegration(own.name, 'openai', {
      integrationId: 'openai',
      officeId: office,
      secretName,
    });
    await cluster.saveBinding(
      own.name,
      'cached-openai',
      { agentName: 'cached', integrationId: 'openai', secretName, enabled: true },
      office,
    );
  }

  it('hold trimmed objects (no managedFields, nothing outside the kept fields) while reconciles still converge', async () => {
    await installCrds();
    const secretName = `openai-${office}`;
    await apps().createNamespacedStatefulSet({ namespace: own.name, body: kubectlAppliedAgent('cached') });
    // A pod carrying the agent label (as every agent workload's pods do).
    await core().createNamespacedPod({
      namespace: own.name,
      body: {
        metadata: { name: 'cached-pod', labels: { 'colony.ai/agent': 'cached' } },
        spec: { containers: [{ name: 'agent', image: 'busybox' }], terminationGracePeriodSeconds: 0 },
      },
    });
    await configureOpenai(secretName);
    const controller = new ColonyController({ kc: kubeConfig(), registry, resyncMs: 0, namespace: own.name });
    await controller.start();
    try {
      // End to end: the binding converges through the trimmed caches.
      await eventually(async () => {
        const [b] = await wire<AgentBindingObject>(API_VERSION, 'AgentBinding', 'agentbindings');
        return b?.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True');
      }, 15_000);
      const view = controller.view;
      const kinds = [
        {
          informer: view.statefulSets,
          transform: cachedWorkload,
          ref: ['apps/v1', 'StatefulSet', 'statefulsets'],
        },
        { informer: view.pods, transform: cachedPod, ref: ['v1', 'Pod', 'pods'] },
        { informer: view.secrets, transform: cachedSecret, ref: ['v1', 'Secret', 'secrets'] },
        {
          informer: view.bindings,
          transform: cachedBinding,
          ref: [API_VERSION, 'AgentBinding', 'agentbindings'],
        },
        {
          informer: view.integrations,
          transform: cachedIntegration,
          ref: [API_VERSION, 'Integration', 'integrations'],
        },
      ] as const;
      for (const { informer, transform, ref } of kinds) {
        const [apiVersion, kind, plural] = ref;
        // The cache catches up with the last write (status, the applied template) before comparing.
        const [live] = await eventually(async () => {
          const items = await wire(apiVersion, kind, plural);
          const cached = informer.list();
          return items.length === 1 &&
            cached.length === 1 &&
            items[0]?.metadata?.resourceVersion === cached[0]?.metadata?.resourceVersion
            ? items
            : undefined;
        }, 15_000);
        if (!live) throw new Error(`no ${kind} in ${own.name}`);
        const cached = informer.list()[0];
        expect(live.metadata?.managedFields?.length, kind).toBeGreaterThan(0);
        expect(cached?.metadata, kind).not.toHaveProperty('managedFields');
        expect(cached?.metadata?.annotations ?? {}, kind).not.toHaveProperty([LAST_APPLIED]);
        expect(cached, kind).toStrictEqual((transform as (o: KubernetesObject) => KubernetesObject)(live));
      }
      expect(view.statefulSets.list()[0]?.spec?.template.spec).toStrictEqual({
        containers: [
          {
            name: 'agent',
            env: [
              { name: 'OWN', value: '1' },
              {
                name: 'OPENAI_API_KEY',
                valueFrom: { secretKeyRef: { name: secretName, key: 'OPENAI_API_KEY' } },
              },
            ],
          },
        ],
      });
      // Of a pod's spec only its containers' names and requests, which the usage meter weighs.
      expect(view.pods.list()[0]?.spec).toStrictEqual({ containers: [{ name: 'agent' }] });
    } finally {
      await controller.stop();
    }
  });
});
