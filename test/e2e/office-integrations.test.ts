// User stories, end to end through the public interfaces: an office admin configures integrations
// through the office-manager API, enables them for an agent, sees the env var in the agent's Running
// pod and the per-office service come up, then disables them and sees everything torn down.
import { randomBytes } from 'node:crypto';
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1EnvVar, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeConfig } from '../support/kube.ts';
import { type ColonyUnderTest, inCluster, startColony } from './support/colony-under-test.ts';
import { eventually } from './support/eventually.ts';

const officeId = `e2e-${randomBytes(3).toString('hex')}`;
const prefix = process.env.COLONY_E2E_NAMESPACE_PREFIX ?? 'colony-e2e';
const officeNs = `${prefix}-${officeId}`;
const agent = 'writer';
const openaiSecret = `openai-${officeId}`;
const tailscaleSecret = `tailscale-${officeId}`;
const serviceName = 'colony-tailscale';
// A container that runs anywhere and does nothing: on kind it really runs, on kwok it is simulated.
const agentImage = process.env.COLONY_E2E_AGENT_IMAGE ?? 'registry.k8s.io/pause:3.10';

let admin: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let colony: ColonyUnderTest;
let firstPod = '';
let enabledPod = '';

async function call(method: string, path: string, body?: unknown, token = colony.bootstrapToken) {
  const res = await fetch(`${colony.apiUrl}/api/v1/offices/${officeId}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text,
    json: () => JSON.parse(text),
  };
}

const live = (p: V1Pod) => !p.metadata?.deletionTimestamp;
const envOf = (p: V1Pod): V1EnvVar[] => p.spec?.containers?.[0]?.env ?? [];

async function agentPods(): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace: officeNs, labelSelector: `app=${agent}-agent` })).items;
}

/** A Running, non-terminating agent pod that satisfies the predicate. */
async function runningAgentPod(what: string, accept: (p: V1Pod) => boolean): Promise<V1Pod> {
  return eventually(
    what,
    async () => {
      const pods = await agentPods();
      const pod = pods.find((p) => live(p) && p.status?.phase === 'Running' && accept(p));
      if (!pod) {
        const seen = pods.map((p) => `${p.metadata?.name}:${p.status?.phase}:${envOf(p).map((e) => e.name)}`);
        throw new Error(`agent pods: ${seen.join(' ') || 'none'}`);
      }
      return pod;
    },
    { timeoutMs: 180_000 },
  );
}

async function toggle(integration: string, secretName: string, enabled: boolean) {
  const r = await call('POST', `/integrations/${integration}/agents/${agent}`, { enabled, secretName });
  expect(r.status, r.text).toBe(200);
  return r;
}

async function registrationStatus(integration: string): Promise<string | undefined> {
  const r = await call('GET', '/integrations');
  expect(r.status, r.text).toBe(200);
  const text = r.text;
  const list = JSON.parse(text) as {
    integrations?: { integrationId: string; registration?: { Status?: string } }[];
  };
  return list.integrations?.find((i) => i.integrationId === integration)?.registration?.Status;
}

beforeAll(async () => {
  admin = kubeConfig();
  core = admin.makeApiClient(CoreV1Api);
  apps = admin.makeApiClient(AppsV1Api);
  // The office: a namespace labelled with its id, and one agent Deployment in it.
  await core.createNamespace({
    body: {
      metadata: { name: officeNs, labels: { 'colony.ai/office': officeId, 'colony.ai/test': 'true' } },
    },
  });
  await apps.createNamespacedDeployment({
    namespace: officeNs,
    body: {
      metadata: { name: agent, labels: { 'colony.ai/agent': agent } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: `${agent}-agent` } },
        template: {
          metadata: { labels: { app: `${agent}-agent` } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'agent', image: agentImage }],
          },
        },
      },
    },
  });
  colony = await startColony(admin, officeNs);
  firstPod = (await runningAgentPod('the agent runs', () => true)).metadata?.name ?? '';
});

afterAll(async () => {
  await core?.deleteNamespace({ name: officeNs }).catch(() => {});
  await colony?.stop();
});

describe(`Colony end to end (${inCluster ? 'in-cluster release' : 'chart installed, processes as its ServiceAccounts'})`, () => {
  it('answers a bad credential save with problem+json naming the field, and stores nothing', async () => {
    const r = await call('POST', '/integrations/openai/secret', { data: {} });
    expect(r.status, r.text).toBe(400);
    expect(r.type).toMatch(/^application\/problem\+json/);
    expect(r.text).toContain('OPENAI_API_KEY');
    const anonymous = await call('POST', '/integrations/openai/secret', { data: {} }, '');
    expect(anonymous.status).toBe(401);
  });

  it('stores an integration’s credentials through the office-manager API; it reports configured', async () => {
    const r = await call('POST', '/integrations/openai/secret', {
      data: { OPENAI_API_KEY: 'sk-e2e-secret-value' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.text).not.toContain('sk-e2e-secret-value');
    expect(r.json()).toMatchObject({ integrationId: 'openai', savedKeys: ['OPENAI_API_KEY'] });
    await eventually('openai is configured', async () => {
      expect(await registrationStatus('openai')).toBe('configured');
    });
  });

  it('enabling it for an agent rolls the agent: a new Running pod has OPENAI_API_KEY from the Secret', async () => {
    await toggle('openai', openaiSecret, true);
    const pod = await runningAgentPod('a rolled agent pod carries OPENAI_API_KEY', (p) =>
      envOf(p).some((e) => e.name === 'OPENAI_API_KEY'),
    );
    enabledPod = pod.metadata?.name ?? '';
    expect(enabledPod).not.toBe(firstPod);
    expect(envOf(pod).find((e) => e.name === 'OPENAI_API_KEY')).toEqual({
      name: 'OPENAI_API_KEY',
      valueFrom: { secretKeyRef: { name: openaiSecret, key: 'OPENAI_API_KEY' } },
    });
    await eventually('openai is active', async () => {
      expect(await registrationStatus('openai')).toBe('active');
    });
  });

  it('the per-office service starts the first time an agent enables an integration that has one', async () => {
    const saved = await call('POST', '/integrations/tailscale/secret', {
      data: { TS_AUTHKEY: 'tskey-e2e-value' },
    });
    expect(saved.status, saved.text).toBe(200);
    await eventually('tailscale is configured', async () => {
      expect(await registrationStatus('tailscale')).toBe('configured');
    });
    // Configured but enabled for nobody: no service yet.
    await expect(
      apps.readNamespacedDeployment({ name: serviceName, namespace: officeNs }),
    ).rejects.toMatchObject({
      code: 404,
    });
    await toggle('tailscale', tailscaleSecret, true);
    const deployment = await eventually('the service Deployment exists', () =>
      apps.readNamespacedDeployment({ name: serviceName, namespace: officeNs }),
    );
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.spec?.strategy?.type).toBe('Recreate');
    await core.readNamespacedService({ name: serviceName, namespace: officeNs });
    await core.readNamespacedPersistentVolumeClaim({ name: serviceName, namespace: officeNs });
    await eventually(
      inCluster ? 'the service pod is scheduled' : 'the service pod is Running',
      async () => {
        const pods = await core.listNamespacedPod({
          namespace: officeNs,
          labelSelector: `app.kubernetes.io/name=${serviceName}`,
        });
        const pod = pods.items.find(live);
        // On kind the real tailscale image starts with a fake auth key, so it may not stay up;
        // being scheduled shows the Deployment, its Secret env and its PVC are consistent.
        if (!pod?.spec?.nodeName) throw new Error('no scheduled service pod');
        if (!inCluster && pod.status?.phase !== 'Running') throw new Error(`phase ${pod.status?.phase}`);
      },
      { timeoutMs: 180_000 },
    );
    await runningAgentPod('the agent gets the service URL', (p) =>
      envOf(p).some(
        (e) => e.name === 'TAILSCALE_PROXY_URL' && e.value === `http://${serviceName}.${officeNs}.svc:1055`,
      ),
    );
  });

  it('disabling removes exactly the injected env and tears the service down, keeping its PVC', async () => {
    await toggle('openai', openaiSecret, false);
    await toggle('tailscale', tailscaleSecret, false);
    const injected = ['OPENAI_API_KEY', 'TAILSCALE_PROXY_URL'];
    const pod = await runningAgentPod('a rolled agent pod without the injected env', (p) =>
      envOf(p).every((e) => !injected.includes(e.name)),
    );
    expect(pod.metadata?.name).not.toBe(enabledPod);
    const template = await apps.readNamespacedDeployment({ name: agent, namespace: officeNs });
    expect(template.spec?.template.spec?.containers[0]?.env ?? []).toEqual([]);
    await eventually('the service Deployment and Service are gone', async () => {
      await expect(
        apps.readNamespacedDeployment({ name: serviceName, namespace: officeNs }),
      ).rejects.toMatchObject({
        code: 404,
      });
      await expect(
        core.readNamespacedService({ name: serviceName, namespace: officeNs }),
      ).rejects.toMatchObject({
        code: 404,
      });
    });
    const pvc = await core.readNamespacedPersistentVolumeClaim({ name: serviceName, namespace: officeNs });
    expect(pvc.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('deleting an integration’s credentials removes its Secret and its Integration', async () => {
    const r = await call('DELETE', '/integrations/openai/secret');
    expect([200, 204], r.text).toContain(r.status);
    await expect(
      core.readNamespacedSecret({ name: openaiSecret, namespace: officeNs }),
    ).rejects.toMatchObject({
      code: 404,
    });
    await eventually('openai is no longer listed', async () => {
      expect(await registrationStatus('openai')).toBeUndefined();
    });
  });
});
