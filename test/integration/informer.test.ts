// Informer on a real API server: list, watch, cache and handlers for ConfigMaps in one namespace.
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentBindingObject, OfficeCluster } from '../../api/office/office-cluster.ts';
import { GROUP, VERSION } from '../../controller/api/crds.ts';
import { Informer } from '../../controller/runtime/informer.ts';
import { listWatchSource } from '../../controller/runtime/list-watch-source.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';
import { eventually } from '../support/server.ts';

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
