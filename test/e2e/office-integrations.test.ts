// User stories, end to end through the public interfaces, against Colony running in the cluster (see
// support/colony-under-test.ts): an office admin saves credentials through the office-manager API and
// enables integrations for an agent; the running agent PROCESS gets, changes and loses its variables;
// the per-office service starts, answers the agent over its Service, keeps its volume's data across a
// teardown and a re-enable; the office-manager API answers only where the chart says.
//
// NetworkPolicies are not tested here: the local cluster's CNI is Debian's `bridge` plugin, which
// does not enforce them, so a "denied" connection would succeed and prove nothing. The chart's
// policies are checked by the server-side dry-run in the integration tier.
import { randomBytes } from 'node:crypto';
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1EnvVar, type V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubeConfig, onKwokNodes } from '../support/kube.ts';
import {
  type ColonyUnderTest,
  colonyMode,
  startColony,
  TAILSCALE_IMAGE,
} from './support/colony-under-test.ts';
import { eventually } from './support/eventually.ts';
import { fetchFromPod, NODE, type PodRef, processEnv } from './support/in-pod.ts';
import { isReady } from './support/pod-status.ts';

const officeId = `e2e-${randomBytes(3).toString('hex')}`;
const prefix = process.env.COLONY_E2E_NAMESPACE_PREFIX ?? 'colony-e2e';
const officeNs = `${prefix}-${officeId}`;
const agent = 'writer';
const openaiSecret = `openai-${officeId}`;
const tailscaleSecret = `tailscale-${officeId}`;
const serviceName = 'colony-tailscale';
const serviceUrl = `http://${serviceName}.${officeNs}.svc:1055`;
const CHECKSUM = 'colony.ai/credentials-checksum';
// Only the simulated (local) mode needs an image of its own: kwok never runs it.
const simulatedAgentImage = process.env.COLONY_E2E_AGENT_IMAGE ?? 'registry.k8s.io/pause:3.10';
const real = colonyMode !== 'local';

let admin: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let colony: ColonyUnderTest;
/** The stand-in service runs in place of Tailscale (the release maps its image to ours). */
let standIn = false;
let firstPod = '';
let enabledPod: V1Pod | undefined;
let firstVolumeId = '';

async function call(method: string, path: string, body?: unknown, token = colony.bootstrapToken) {
  const res = await fetch(`${colony.managerUrl}/api/v1/offices/${officeId}${path}`, {
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
const checksumOf = (p: V1Pod | undefined) => p?.metadata?.annotations?.[CHECKSUM];
const agentRef = (p: V1Pod): PodRef => ({
  namespace: officeNs,
  pod: p.metadata?.name ?? '',
  container: 'agent',
});

async function agentPods(): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace: officeNs, labelSelector: `app=${agent}-agent` })).items;
}

/** A Ready, non-terminating agent pod that satisfies the predicate. */
async function readyAgentPod(what: string, accept: (p: V1Pod) => boolean): Promise<V1Pod> {
  return eventually(
    what,
    async () => {
      const pods = await agentPods();
      const pod = pods.find((p) => live(p) && p.status?.phase === 'Running' && isReady(p) && accept(p));
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

async function saveCredentials(integration: string, data: Record<string, string>) {
  const r = await call('POST', `/integrations/${integration}/secret`, { data });
  expect(r.status, r.text).toBe(200);
  for (const value of Object.values(data)) expect(r.text).not.toContain(value);
  return r;
}

async function registrationStatus(integration: string): Promise<string | undefined> {
  const r = await call('GET', '/integrations');
  expect(r.status, r.text).toBe(200);
  const list = JSON.parse(r.text) as {
    integrations?: { integrationId: string; registration?: { Status?: string } }[];
  };
  return list.integrations?.find((i) => i.integrationId === integration)?.registration?.Status;
}

/**
 * What the stand-in service answers, asked from inside the agent's pod through the Service. After a
 * teardown and re-enable the name can stay unresolvable, or point at the old address, for up to the
 * DNS cache's TTL (CoreDNS: 30 s): agents see the same, so this waits as they must.
 */
async function serviceFromAgent(): Promise<{
  boots: number;
  volumeId: string;
  stateDir: string;
  hasAuthKey: boolean;
}> {
  return eventually('the service answers the agent over its Service', async () => {
    // Asked anew each time: the agent may be rolling, and an old pod goes away mid-question.
    const pod = await readyAgentPod('an agent pod to ask from', () => true);
    const r = await fetchFromPod(agentRef(pod), `${serviceUrl}/`);
    if (r.status !== 200) throw new Error(`GET ${serviceUrl}/: ${r.error ?? `${r.status} ${r.body}`}`);
    expect(r.body).not.toContain('tskey-');
    return JSON.parse(r.body ?? '{}');
  });
}

async function servicePod(): Promise<V1Pod> {
  return eventually(
    'the service pod runs',
    async () => {
      const pods = await core.listNamespacedPod({
        namespace: officeNs,
        labelSelector: `app.kubernetes.io/name=${serviceName}`,
      });
      const pod = pods.items.find(live);
      if (!pod?.spec?.nodeName) throw new Error('no scheduled service pod');
      // The real Tailscale image starts with a fake auth key on kind and may not stay up: scheduled is
      // what can be asked of it. The stand-in (and kwok) must run.
      if ((standIn || !real) && !isReady(pod)) throw new Error(`service pod ${pod.status?.phase}, not ready`);
      return pod;
    },
    { timeoutMs: 180_000 },
  );
}

async function expectServiceGone() {
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
}

beforeAll(async () => {
  admin = kubeConfig();
  core = admin.makeApiClient(CoreV1Api);
  apps = admin.makeApiClient(AppsV1Api);
  // The office: a namespace labelled with its id, and one agent Deployment in it. Its pods run on the
  // real node, except in the simulated mode.
  await core.createNamespace({
    body: {
      metadata: {
        name: officeNs,
        labels: { 'colony.ai/office': officeId, 'colony.ai/test': 'true' },
        ...(real ? {} : { annotations: onKwokNodes }),
      },
    },
  });
  colony = await startColony(admin, officeNs);
  standIn = real && Boolean(colony.imageOverrides[TAILSCALE_IMAGE]);
  // A real agent: the Colony image's node, kept alive doing nothing, so its environment can be read.
  const container = colony.image
    ? {
        name: 'agent',
        image: colony.image,
        imagePullPolicy: 'IfNotPresent',
        command: [NODE, '-e', 'setInterval(() => {}, 1 << 30)'],
        securityContext: {
          runAsNonRoot: true,
          runAsUser: 65532,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        },
      }
    : { name: 'agent', image: simulatedAgentImage };
  await apps.createNamespacedDeployment({
    namespace: officeNs,
    body: {
      metadata: { name: agent, labels: { 'colony.ai/agent': agent } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: `${agent}-agent` } },
        template: {
          metadata: { labels: { app: `${agent}-agent` } },
          spec: { terminationGracePeriodSeconds: 1, containers: [container] },
        },
      },
    },
  });
  firstPod = (await readyAgentPod('the agent runs', () => true)).metadata?.name ?? '';
});

afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail' && colony) console.error(`Colony's recent output:\n${colony.logs()}`);
});

afterAll(async () => {
  if (process.env.COLONY_E2E_KEEP !== '1') await core?.deleteNamespace({ name: officeNs }).catch(() => {});
  await colony?.stop();
});

describe(`Colony end to end (${colonyMode} mode${real ? ', real containers' : ', simulated pods'})`, () => {
  it('answers a bad credential save with problem+json naming the field, and stores nothing', async () => {
    const r = await call('POST', '/integrations/openai/secret', { data: {} });
    expect(r.status, r.text).toBe(400);
    expect(r.type).toMatch(/^application\/problem\+json/);
    expect(r.text).toContain('OPENAI_API_KEY');
    const anonymous = await call('POST', '/integrations/openai/secret', { data: {} }, '');
    expect(anonymous.status).toBe(401);
  });

  it('stores an integration’s credentials through the office-manager API; it reports configured', async () => {
    const r = await saveCredentials('openai', { OPENAI_API_KEY: 'sk-e2e-first-value' });
    expect(r.json()).toMatchObject({ integrationId: 'openai', savedKeys: ['OPENAI_API_KEY'] });
    await eventually('openai is configured', async () => {
      expect(await registrationStatus('openai')).toBe('configured');
    });
  });

  it('enabling it for an agent rolls the agent, and the new process has OPENAI_API_KEY', async () => {
    await toggle('openai', openaiSecret, true);
    const pod = await readyAgentPod('a rolled agent pod carries OPENAI_API_KEY', (p) =>
      envOf(p).some((e) => e.name === 'OPENAI_API_KEY'),
    );
    enabledPod = pod;
    expect(pod.metadata?.name).not.toBe(firstPod);
    expect(envOf(pod).find((e) => e.name === 'OPENAI_API_KEY')).toEqual({
      name: 'OPENAI_API_KEY',
      valueFrom: { secretKeyRef: { name: openaiSecret, key: 'OPENAI_API_KEY' } },
    });
    if (real) expect((await processEnv(agentRef(pod))).OPENAI_API_KEY).toBe('sk-e2e-first-value');
    await eventually('openai is active', async () => {
      expect(await registrationStatus('openai')).toBe('active');
    });
  });

  it('saving a new credential rolls the agent, and the new process sees the new value', async () => {
    await saveCredentials('openai', { OPENAI_API_KEY: 'sk-e2e-rotated-value' });
    const before = checksumOf(enabledPod);
    const pod = await readyAgentPod('a pod of the next rollout', (p) => {
      const sum = checksumOf(p);
      return sum !== undefined && sum !== before;
    });
    expect(pod.metadata?.name).not.toBe(enabledPod?.metadata?.name);
    if (real) expect((await processEnv(agentRef(pod))).OPENAI_API_KEY).toBe('sk-e2e-rotated-value');
  });

  it('disabling it rolls the agent, and the variable is gone from the process', async () => {
    await toggle('openai', openaiSecret, false);
    const pod = await readyAgentPod('a rolled agent pod without OPENAI_API_KEY', (p) =>
      envOf(p).every((e) => e.name !== 'OPENAI_API_KEY'),
    );
    if (real) expect(Object.keys(await processEnv(agentRef(pod)))).not.toContain('OPENAI_API_KEY');
    const template = await apps.readNamespacedDeployment({ name: agent, namespace: officeNs });
    expect(template.spec?.template.spec?.containers[0]?.env ?? []).toEqual([]);
  });

  it('the per-office service starts on first enable and answers the agent over its Service', async () => {
    await saveCredentials('tailscale', { TS_AUTHKEY: 'tskey-e2e-value' });
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
    const image = deployment.spec?.template.spec?.containers[0]?.image;
    expect(image).toBe(colony.imageOverrides[TAILSCALE_IMAGE] ?? TAILSCALE_IMAGE);
    await core.readNamespacedService({ name: serviceName, namespace: officeNs });
    const pvc = await eventually('the claim carries the controller’s labels', async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ name: serviceName, namespace: officeNs });
      expect(c.metadata?.labels?.['colony.ai/integration']).toBe('tailscale');
      return c;
    });
    expect(pvc.spec?.resources?.requests?.storage).toBe('1Gi');
    const pod = await servicePod();
    expect(pod.spec?.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe(
      serviceName,
    );
    const agentPod = await readyAgentPod('the agent gets the service URL', (p) =>
      envOf(p).some((e) => e.name === 'TAILSCALE_PROXY_URL' && e.value === serviceUrl),
    );
    if (real) expect((await processEnv(agentRef(agentPod))).TAILSCALE_PROXY_URL).toBe(serviceUrl);
    if (!standIn) return;
    const answer = await serviceFromAgent();
    expect(answer).toMatchObject({ boots: 1, stateDir: '/var/lib/tailscale', hasAuthKey: true });
    firstVolumeId = answer.volumeId;
  });

  it('disabling tears the service down (Deployment, Service) and keeps its claim', async () => {
    await toggle('tailscale', tailscaleSecret, false);
    await expectServiceGone();
    const pod = await readyAgentPod('a rolled agent pod without the service URL', (p) =>
      envOf(p).every((e) => e.name !== 'TAILSCALE_PROXY_URL'),
    );
    if (real) expect(Object.keys(await processEnv(agentRef(pod)))).not.toContain('TAILSCALE_PROXY_URL');
    const template = await apps.readNamespacedDeployment({ name: agent, namespace: officeNs });
    expect(template.spec?.template.spec?.containers[0]?.env ?? []).toEqual([]);
    const pvc = await core.readNamespacedPersistentVolumeClaim({ name: serviceName, namespace: officeNs });
    expect(pvc.metadata?.deletionTimestamp).toBeUndefined();
    expect(pvc.status?.phase).toBe('Bound');
    // Cluster DNS may serve the deleted Service's address for up to its TTL (CoreDNS: 30 s), and where
    // that address then leads depends on the network (nowhere, or an egress proxy's 404): what must
    // hold is that the service itself no longer answers.
    if (standIn)
      await eventually('the service no longer answers the agent', async () => {
        const gone = await fetchFromPod(agentRef(pod), `${serviceUrl}/`);
        expect(gone.status === 200 && gone.body?.includes('"boots"'), JSON.stringify(gone)).toBe(false);
      });
  });

  it.runIf(real)('enabling it again brings the service back on the same volume, its data kept', async () => {
    await toggle('tailscale', tailscaleSecret, true);
    await servicePod();
    if (!standIn) return;
    const answer = await serviceFromAgent();
    expect(answer).toMatchObject({ boots: 2, volumeId: firstVolumeId, hasAuthKey: true });
  });

  it.runIf(real)(
    'the office-manager API answers on the manager port only, as the chart configures',
    async () => {
      const inCluster = colony.inCluster;
      if (!inCluster) throw new Error('a real-container mode must know the in-cluster URLs');
      const pod = await readyAgentPod('an agent pod to ask from', () => true);
      const ask = (url: string) => fetchFromPod(agentRef(pod), url);
      const office = `/api/v1/offices/${officeId}/integrations`;
      if (!inCluster.managerUrl) {
        // api.managerPort 0: the office-manager API shares the public port (and asks for a token).
        const onPublic = await ask(`${inCluster.apiUrl}${office}`);
        expect(onPublic.status, JSON.stringify(onPublic)).toBe(401);
        return;
      }
      // From a pod, through the Service: the public port does not serve it, the manager port does.
      const onPublic = await ask(`${inCluster.apiUrl}${office}`);
      expect(onPublic.status, JSON.stringify(onPublic)).toBe(404);
      expect(onPublic.contentType).toMatch(/^application\/problem\+json/);
      const onManager = await ask(`${inCluster.managerUrl}${office}`);
      expect(onManager.status, JSON.stringify(onManager)).toBe(401);
      expect(onManager.contentType).toMatch(/^application\/problem\+json/);
      // ... and the manager port serves nothing else.
      expect((await ask(`${inCluster.managerUrl}/api/v1/pricing`)).status).toBe(404);
      expect((await ask(`${inCluster.apiUrl}/api/v1/pricing`)).status).toBe(200);
      // The same from outside the cluster, through the port-forward, with the operator's token.
      const auth = { authorization: `Bearer ${colony.bootstrapToken}` };
      expect((await fetch(`${colony.apiUrl}${office}`, { headers: auth })).status).toBe(404);
      expect((await fetch(`${colony.managerUrl}${office}`, { headers: auth })).status).toBe(200);
    },
  );

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
