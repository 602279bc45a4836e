// The agent controller on a real control plane: toggling an integration on injects its env vars
// into the agent's pods, toggling off removes exactly them, bad state is reported and retried.
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { GROUP, VERSION } from '../../cluster/crds/crds.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import { ColonyController } from '../../controller/colony-controller.ts';
import type { SharedInformer } from '../../controller/runtime/multi-namespace-informer.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { agentStatefulSet } from '../support/agents.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';

const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
let ns: Awaited<ReturnType<typeof withNamespace>>;
let controller: ColonyController;
const office = 'acme';
const apps = () => kubeConfig().makeApiClient(AppsV1Api);
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const custom = () => kubeConfig().makeApiClient(CustomObjectsApi);
const cluster = () => new OfficeCluster(kubeConfig());

async function configure(id: string, data: Record<string, string>) {
  const manifest = registry.get(id);
  if (!manifest) throw new Error(id);
  const secretName = `${id}-${office}`;
  await cluster().saveSecret(
    renderIntegrationSecret({ manifest, officeId: office, namespace: ns.name, secretName, data }),
  );
  await cluster().saveIntegration(ns.name, id, { integrationId: id, officeId: office, secretName });
}

const toggle = (agentName: string, id: string, enabled: boolean) =>
  cluster().saveBinding(
    ns.name,
    `${agentName}-${id}`,
    { agentName, integrationId: id, secretName: `${id}-${office}`, enabled },
    office,
  );

async function createAgent(name: string) {
  const body = agentStatefulSet(name, { env: [{ name: 'OWN', value: '1' }] });
  await apps().createNamespacedStatefulSet({ namespace: ns.name, body });
}

const templateEnv = async (name: string) =>
  (
    (await apps().readNamespacedStatefulSet({ name, namespace: ns.name })).spec?.template.spec?.containers[0]
      ?.env ?? []
  )
    .map((e) => e.name)
    .sort();

const bindingStatus = async (name: string) =>
  (
    (await custom().getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: 'agentbindings',
      name,
    })) as {
      status?: { conditions?: { type: string; status: string; reason: string }[]; injectedEnv?: string[] };
    }
  ).status;

type Listed = Promise<{ items: KubernetesObject[] }>;
const owned = 'app.kubernetes.io/managed-by=colony';
/** What each of the controller's caches should hold: the API server's list with the cache's selector. */
const listed: Record<keyof ColonyController['view'], () => Listed> = {
  bindings: () =>
    custom().listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: 'agentbindings',
    }) as Listed,
  integrations: () =>
    custom().listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: 'integrations',
    }) as Listed,
  secrets: () => core().listNamespacedSecret({ namespace: ns.name, labelSelector: owned }),
  deployments: () =>
    apps().listNamespacedDeployment({ namespace: ns.name, labelSelector: 'colony.ai/agent' }),
  statefulSets: () =>
    apps().listNamespacedStatefulSet({ namespace: ns.name, labelSelector: 'colony.ai/agent' }),
  serviceDeployments: () =>
    apps().listNamespacedDeployment({ namespace: ns.name, labelSelector: `${owned},colony.ai/integration` }),
  services: () =>
    core().listNamespacedService({ namespace: ns.name, labelSelector: `${owned},colony.ai/integration` }),
  pods: () => core().listNamespacedPod({ namespace: ns.name, labelSelector: 'colony.ai/agent' }),
};

/** Whether every cache holds exactly what the API server lists now, at the same resourceVersions. */
async function cachesCurrent(): Promise<boolean> {
  for (const [kind, list] of Object.entries(listed)) {
    const cache = controller.view[kind as keyof typeof listed] as SharedInformer<KubernetesObject>;
    const { items } = await list();
    const version = (o: KubernetesObject) =>
      cache.get(`${ns.name}/${o.metadata?.name}`)?.metadata?.resourceVersion;
    if (cache.size !== items.length || items.some((o) => version(o) !== o.metadata?.resourceVersion))
      return false;
  }
  return true;
}

const drained = () =>
  [controller.agents, controller.integrations].every((q) => q.length === 0 && q.inFlight === 0);

/**
 * Waits until the controller has caught up with the API server (its caches hold what the server holds,
 * nothing queued or running, no write meanwhile), then reconciles the given agents and Integrations
 * once more and waits for that too: whatever the present state makes the controller do is done.
 */
async function caughtUp(agents: string[] = [], integrations: string[] = []) {
  await eventually(async () => {
    const writes = controller.writes;
    return drained() && (await cachesCurrent()) && drained() && controller.writes === writes;
  }, 30_000);
  for (const name of agents) controller.agents.add(`${ns.name}/${name}`);
  for (const name of integrations) controller.integrations.add(`${ns.name}/${name}`);
  await eventually(async () => drained(), 30_000);
}

beforeAll(async () => {
  await installCrds();
  ns = await withNamespace('office-ctl');
  // Scoped to this file's namespace: other files run controllers of their own in parallel.
  controller = new ColonyController({ kc: kubeConfig(), registry, resyncMs: 0, namespace: ns.name });
  await controller.start();
});
afterAll(async () => {
  await controller.stop();
  await ns.dispose();
});

describe('ColonyController', () => {
  it('injects an enabled integration into the agent and its Running pod, and removes it when disabled', async () => {
    await createAgent('writer');
    await configure('openai', { OPENAI_API_KEY: 'sk-1' });
    await toggle('writer', 'openai', true);
    await eventually(async () => (await templateEnv('writer')).includes('OPENAI_API_KEY'), 15_000);
    expect(await templateEnv('writer')).toEqual(['OPENAI_API_KEY', 'OWN']);
    const status = await eventually(async () => {
      const s = await bindingStatus('writer-openai');
      return s?.conditions?.find((c) => c.type === 'Available')?.status === 'True' ? s : undefined;
    });
    expect(status.injectedEnv).toEqual(['OPENAI_API_KEY']);
    await eventually(async () => {
      const pod = await core()
        .readNamespacedPod({ name: 'writer-0', namespace: ns.name })
        .catch(() => undefined);
      return (
        pod?.status?.phase === 'Running' &&
        pod.spec?.containers[0]?.env?.some((e) => e.name === 'OPENAI_API_KEY')
      );
    }, 30_000);

    await toggle('writer', 'openai', false);
    await eventually(async () => !(await templateEnv('writer')).includes('OPENAI_API_KEY'), 15_000);
    expect(await templateEnv('writer')).toEqual(['OWN']);
  });

  it('rolls the agent when credentials are re-saved with new values, and not when they are the same', async () => {
    await createAgent('reader');
    await configure('anthropic', { ANTHROPIC_API_KEY: 'a' });
    await toggle('reader', 'anthropic', true);
    const checksum = async () =>
      (await apps().readNamespacedStatefulSet({ name: 'reader', namespace: ns.name })).spec?.template.metadata
        ?.annotations?.['colony.ai/credentials-checksum'];
    const first = await eventually(checksum, 15_000);
    await configure('anthropic', { ANTHROPIC_API_KEY: 'a' });
    await caughtUp(['reader'], ['anthropic']);
    expect(await checksum()).toBe(first);
    await configure('anthropic', { ANTHROPIC_API_KEY: 'b' });
    await eventually(async () => (await checksum()) !== first, 15_000);
  });

  it('reports a missing workload and injects once the workload appears', async () => {
    await configure('slack', { SLACK_BOT_TOKEN: 'xoxb', SLACK_APP_TOKEN: 'xapp' });
    await toggle('later', 'slack', true);
    const waiting = await eventually(async () => {
      const s = await bindingStatus('later-slack');
      return s?.conditions?.find((c) => c.type === 'Available' && c.reason === 'WorkloadNotFound')
        ? s
        : undefined;
    });
    expect(waiting.conditions?.find((c) => c.type === 'Degraded')?.status).toBe('True');
    const warned = await eventually(async () => {
      const list = await kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name });
      return list.items.find((e) => e.regarding?.name === 'later-slack' && e.reason === 'WorkloadNotFound');
    });
    expect(warned.type).toBe('Warning');
    await createAgent('later');
    await eventually(async () => (await templateEnv('later')).includes('SLACK_BOT_TOKEN'), 15_000);
    // SLACK_DEFAULT_CHANNEL is Slack's per-agent setting (members.agentConfig), at its default.
    expect(await templateEnv('later')).toEqual([
      'OWN',
      'SLACK_APP_TOKEN',
      'SLACK_BOT_TOKEN',
      'SLACK_DEFAULT_CHANNEL',
    ]);
  });

  it('reports an unknown integration and a binding whose Integration is missing, without touching the agent', async () => {
    await createAgent('odd');
    await cluster().saveBinding(
      ns.name,
      'odd-nothing',
      { agentName: 'odd', integrationId: 'nothing', secretName: 'nothing-acme', enabled: true },
      office,
    );
    await cluster().saveBinding(
      ns.name,
      'odd-github',
      { agentName: 'odd', integrationId: 'github', secretName: 'github-x-acme', enabled: true },
      office,
    );
    const reason = async (name: string) =>
      (await bindingStatus(name))?.conditions?.find((c) => c.type === 'Available')?.reason;
    await eventually(async () => (await reason('odd-nothing')) === 'UnknownIntegration');
    await eventually(async () => (await reason('odd-github')) === 'IntegrationNotConfigured');
    expect(await templateEnv('odd')).toEqual(['OWN']);
  });

  it('moves the registration from pending to configured to active, and reports a missing Secret', async () => {
    const registration = async (name: string) =>
      (
        (await custom().getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: ns.name,
          plural: 'integrations',
          name,
        })) as {
          status?: { registration?: { Status: string }; enabledAgents?: string[] };
        }
      ).status;
    await eventually(async () => (await registration('openai'))?.registration?.Status === 'configured');
    await toggle('writer', 'openai', true);
    await eventually(async () => (await registration('openai'))?.registration?.Status === 'active');
    expect((await registration('openai'))?.enabledAgents).toEqual(['writer']);
    await core().deleteNamespacedSecret({ name: `openai-${office}`, namespace: ns.name });
    await eventually(async () => (await registration('openai'))?.registration?.Status === 'error');
    await eventually(async () =>
      (await bindingStatus('writer-openai'))?.conditions?.find((c) => c.reason === 'SecretNotFound'),
    );
    await eventually(async () => !(await templateEnv('writer')).includes('OPENAI_API_KEY'), 15_000);
  });

  it('starts a per-office service the first time it is enabled and tears it down, keeping its PVC', async () => {
    await createAgent('net');
    await configure('tailscale', { TS_AUTHKEY: 'tskey-1' });
    await caughtUp(['net'], ['tailscale']);
    await expect(
      apps().readNamespacedDeployment({ name: 'colony-tailscale', namespace: ns.name }),
    ).rejects.toMatchObject({ code: 404 });
    await toggle('net', 'tailscale', true);
    const dep = await eventually(
      () =>
        apps()
          .readNamespacedDeployment({ name: 'colony-tailscale', namespace: ns.name })
          .catch(() => undefined),
      15_000,
    );
    expect(dep.spec?.replicas).toBe(1);
    expect(dep.spec?.strategy?.type).toBe('Recreate');
    await eventually(() =>
      core()
        .readNamespacedService({ name: 'colony-tailscale', namespace: ns.name })
        .catch(() => undefined),
    );
    await eventually(
      async () =>
        (await core().readNamespacedPersistentVolumeClaim({ name: 'colony-tailscale', namespace: ns.name }))
          .status?.phase === 'Bound',
      30_000,
    );
    await eventually(async () => (await templateEnv('net')).includes('TAILSCALE_PROXY_URL'), 15_000);
    await eventually(
      async () =>
        (await apps().readNamespacedDeployment({ name: 'colony-tailscale', namespace: ns.name })).status
          ?.readyReplicas === 1,
      30_000,
    );

    await toggle('net', 'tailscale', false);
    await eventually(
      () =>
        apps()
          .readNamespacedDeployment({ name: 'colony-tailscale', namespace: ns.name })
          .then(
            () => undefined,
            () => true,
          ),
      15_000,
    );
    // The Service goes right after the Deployment.
    await eventually(() =>
      core()
        .readNamespacedService({ name: 'colony-tailscale', namespace: ns.name })
        .then(
          () => undefined,
          (err: { code?: number }) => err.code === 404,
        ),
    );
    expect(
      (await core().readNamespacedPersistentVolumeClaim({ name: 'colony-tailscale', namespace: ns.name }))
        .metadata?.name,
    ).toBe('colony-tailscale');
    await eventually(async () => !(await templateEnv('net')).includes('TAILSCALE_PROXY_URL'), 15_000);
  });

  it('does not write anything when nothing changed', async () => {
    await caughtUp();
    const before = controller.writes;
    await caughtUp(
      ['writer', 'reader', 'later', 'odd', 'net'],
      ['openai', 'anthropic', 'slack', 'tailscale'],
    );
    expect(controller.writes).toBe(before);
  });
});
