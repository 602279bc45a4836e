// Events on a real API server: one Event per distinct occurrence, repeats folded into its series.
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRecorder } from '../../controller/runtime/events.ts';
import { kubeConfig, withNamespace } from '../support/kube.ts';

let ns: Awaited<ReturnType<typeof withNamespace>>;
beforeAll(async () => {
  ns = await withNamespace('events');
});
afterAll(() => ns.dispose());

describe('eventRecorder', () => {
  it('creates one Event and counts repeats in its series', async () => {
    const cm = await kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'subject' } } });
    const recorder = eventRecorder(kubeConfig(), 'colony.ai/controller', 'test-1');
    const subject = { ...cm, apiVersion: 'v1', kind: 'ConfigMap' };
    for (let i = 0; i < 3; i++)
      await recorder.record(subject, 'Warning', 'SecretKeyMissing', 'Secret x lacks A');
    await recorder.record(subject, 'Normal', 'Injected', 'env injected');
    const events = (await kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name }))
      .items;
    const warning = events.filter((e) => e.reason === 'SecretKeyMissing');
    expect(warning).toHaveLength(1);
    expect(warning[0]?.series?.count).toBe(3);
    expect(warning[0]?.regarding?.uid).toBe(cm.metadata?.uid);
    expect(warning[0]?.reportingController).toBe('colony.ai/controller');
    expect(events.filter((e) => e.reason === 'Injected')).toHaveLength(1);
  });
});
