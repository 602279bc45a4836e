// Server-side apply of the agent env on a real API server: adds exactly Colony's entries, leaves the
// user's alone, removes exactly Colony's entries, and the pods kwok runs carry the variables.
import { AppsV1Api, CoreV1Api, type V1StatefulSet } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverSideApplier } from '../../cluster/apply.ts';
import { type Injection, renderAgentEnvApply } from '../../controller/render/agent-env.ts';
import { eventually } from '../support/eventually.ts';
import { kubeConfig, withNamespace } from '../support/kube.ts';

let ns: Awaited<ReturnType<typeof withNamespace>>;
const apps = () => kubeConfig().makeApiClient(AppsV1Api);
const core = () => kubeConfig().makeApiClient(CoreV1Api);

beforeAll(async () => {
  ns = await withNamespace('office-env');
  await core().createNamespacedSecret({
    namespace: ns.name,
    body: { metadata: { name: 'openai-acme' }, stringData: { OPENAI_API_KEY: 'sk-test' } },
  });
  const agent: V1StatefulSet = {
    metadata: { name: 'writer', labels: { 'colony.ai/agent': 'writer' } },
    spec: {
      serviceName: 'writer',
      replicas: 1,
      selector: { matchLabels: { app: 'writer' } },
      template: {
        metadata: { labels: { app: 'writer' } },
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'agent', image: 'busybox', env: [{ name: 'USER_SETTING', value: 'mine' }] }],
        },
      },
    },
  };
  await apps().createNamespacedStatefulSet({ namespace: ns.name, body: agent, fieldManager: 'someone-else' });
});
afterAll(() => ns.dispose());

const envNames = async () => {
  const sts = await apps().readNamespacedStatefulSet({ name: 'writer', namespace: ns.name });
  return (sts.spec?.template.spec?.containers[0]?.env ?? []).map((e) => e.name).sort();
};

describe('server-side applied agent env', () => {
  const ref = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    name: 'writer',
    namespace: '',
    container: 'agent',
  } as const;
  const openai: Injection = {
    integrationId: 'openai',
    secretName: 'openai-acme',
    secretVersion: '1',
    envVars: ['OPENAI_API_KEY'],
  };

  it('adds the injected variables beside the user’s own, and the Running pod carries them', async () => {
    const applier = serverSideApplier(kubeConfig(), 'colony-controller');
    await applier.apply(
      renderAgentEnvApply({ ...ref, namespace: ns.name }, [
        openai,
        {
          ...openai,
          integrationId: 'proxy',
          secretName: 'x',
          envVars: [],
          values: { PROXY_URL: 'http://p' },
        },
      ]),
    );
    expect(await envNames()).toEqual(['OPENAI_API_KEY', 'PROXY_URL', 'USER_SETTING']);
    const pod = await eventually(async () => {
      const p = await core()
        .readNamespacedPod({ name: 'writer-0', namespace: ns.name })
        .catch(() => undefined);
      const ready =
        p?.status?.phase === 'Running' &&
        p.spec?.containers[0]?.env?.some((e) => e.name === 'OPENAI_API_KEY');
      return ready ? p : undefined;
    }, 30_000);
    expect(
      pod.spec?.containers[0]?.env?.find((e) => e.name === 'OPENAI_API_KEY')?.valueFrom?.secretKeyRef?.name,
    ).toBe('openai-acme');
  });

  it('removes exactly its own entries when an integration is toggled off', async () => {
    const applier = serverSideApplier(kubeConfig(), 'colony-controller');
    await applier.apply(renderAgentEnvApply({ ...ref, namespace: ns.name }, [openai]));
    expect(await envNames()).toEqual(['OPENAI_API_KEY', 'USER_SETTING']);
    await applier.apply(renderAgentEnvApply({ ...ref, namespace: ns.name }, []));
    expect(await envNames()).toEqual(['USER_SETTING']);
    const sts = await apps().readNamespacedStatefulSet({ name: 'writer', namespace: ns.name });
    expect(sts.spec?.template.metadata?.annotations?.['colony.ai/credentials-checksum']).toBeUndefined();
    expect(applier.writes).toBe(2);
  });
});
