// Issue 6 benchmark: the cost of the manifest v2 layers.
// 1. Render: every layer of 100 offices x 12 integrations x 10 agents through the pure renderers
//    (Secrets, credential files, drive claims, each agent's pod-template apply body, serialised as
//    sent). Baseline in the same run: the v1 render of the same fleet (Secret + env injection only).
// 2. Apply-to-ready for one office on the configured cluster: 12 integrations written as the API
//    writes them, the controller (a real process) until every binding is Injected; then API writes
//    per toggle (the API's one apply plus what the controller writes). Baseline: a bare loop making
//    as many server-side applies as were made in that span, two in flight like the workers.
import { randomBytes } from 'node:crypto';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { GROUP, VERSION } from '../../cluster/crds/crds.ts';
import { renderCredentialFiles } from '../../cluster/credential-files.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import { ANNOTATION_ROLES } from '../../cluster/labels.ts';
import { integrationResourceName } from '../../cluster/registration.ts';
import { type Injection, NO_LAYERS, renderAgentEnvApply } from '../../controller/render/agent-env.ts';
import { type EnabledLayers, renderAgentLayers } from '../../controller/render/agent-layers.ts';
import { renderSharedDriveClaim } from '../../controller/render/integration-layers.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import {
  INSTANCE_LABEL,
  type IntegrationManifest,
  secretKeys,
} from '../../integrations/registry/manifest-schema.ts';
import { k8sSecretName } from '../../integrations/registry/secret-name.ts';
import { type ControllerProcess, startControllerProcess } from '../support/controller-process.ts';
import { installCrds, onKwokNodes } from '../support/kube.ts';
import { inPool } from './controller/fixture.ts';
import { parseSamples, sum } from './controller/prometheus-text.ts';
import { atMost, type GoalRow } from './goals.ts';

export interface IntegrationsBenchOptions {
  offices: number;
  agentsPerOffice: number;
  rounds: number;
  toggles: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** The twelve registry integrations every agent gets: all but the database and per-office service ones. */
function benchManifests(): IntegrationManifest[] {
  const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
  return registry
    .list()
    .filter((m) => !m.database && !m.colonyContainer)
    .slice(0, 12);
}

const instanceOf = (m: IntegrationManifest) => (m.multiInstance ? 'main' : undefined);

/** Credential values for every key, so strict templates render. */
function credentials(m: IntegrationManifest, office: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const key of secretKeys(m)) data[key] = `bench-${key.toLowerCase()}-${office}`;
  const instance = instanceOf(m);
  if (instance) data[INSTANCE_LABEL] = instance;
  return data;
}

/** The integration-level v2 objects (credential files, drive claim); answers what the agents need. */
function renderIntegrationLayers(
  ctx: Parameters<typeof renderCredentialFiles>[0],
  data: Record<string, string>,
  resourceName: string,
  bodies: unknown[],
): EnabledLayers {
  const files = renderCredentialFiles(ctx, data);
  if (files && !files.ok) throw new Error(files.message);
  if (files) bodies.push(files.secret);
  bodies.push(renderSharedDriveClaim(ctx, resourceName));
  const filesSecret = files ? { name: files.secret.metadata?.name ?? '', version: files.hash } : undefined;
  return { manifest: ctx.manifest, resourceName, filesSecret };
}

/** Renders one office; `v2` adds every manifest v2 layer. Answers the bytes a controller would send. */
function renderOffice(manifests: IntegrationManifest[], o: number, agents: number, v2: boolean): number {
  const officeId = `o${o}`;
  const namespace = `office-${officeId}`;
  const bodies: unknown[] = [];
  const enabled: EnabledLayers[] = [];
  const injections: Injection[] = [];
  for (const m of manifests) {
    const instanceLabel = instanceOf(m);
    const secretName = k8sSecretName(m.id, officeId, instanceLabel);
    const data = credentials(m, officeId);
    const ctx = { manifest: m, officeId, namespace, secretName, instanceLabel };
    bodies.push(renderIntegrationSecret({ ...ctx, data }));
    const resourceName = integrationResourceName(m.id, instanceLabel);
    injections.push({ integrationId: resourceName, secretName, secretVersion: '1', envVars: m.agentEnvVars });
    if (v2) enabled.push(renderIntegrationLayers(ctx, data, resourceName, bodies));
  }
  for (let a = 0; a < agents; a++) {
    const name = `agent-${a}`;
    const layers = v2 ? renderAgentLayers(name, enabled, 'node:24') : NO_LAYERS;
    const ref = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      name,
      namespace,
      container: 'agent',
      agentName: name,
    } as const;
    bodies.push(renderAgentEnvApply(ref, injections, layers));
    if (layers.config) bodies.push(layers.config);
  }
  return JSON.stringify(bodies).length;
}

function renderFleet(manifests: IntegrationManifest[], offices: number, agents: number, v2: boolean) {
  const started = performance.now();
  let bytes = 0;
  for (let o = 0; o < offices; o++) bytes += renderOffice(manifests, o, agents, v2);
  return { ms: performance.now() - started, bytes };
}

function benchRender(manifests: IntegrationManifest[], o: IntegrationsBenchOptions): number {
  renderFleet(manifests, 5, o.agentsPerOffice, true); // warm-up (Handlebars compiles, JIT)
  renderFleet(manifests, 5, o.agentsPerOffice, false);
  const v1: number[] = [];
  const v2: number[] = [];
  let bytes = { v1: 0, v2: 0 };
  // Interleaved rounds, so drift on a shared machine hits both sides alike.
  for (let r = 0; r < o.rounds; r++) {
    const a = renderFleet(manifests, o.offices, o.agentsPerOffice, false);
    const b = renderFleet(manifests, o.offices, o.agentsPerOffice, true);
    v1.push(a.ms);
    v2.push(b.ms);
    bytes = { v1: a.bytes, v2: b.bytes };
  }
  const agents = o.offices * o.agentsPerOffice;
  const ratio = median(v2) / median(v1);
  console.log(
    `\n## integrations: render (${o.offices} offices x ${manifests.length} integrations x ${o.agentsPerOffice} agents, median of ${o.rounds})`,
  );
  console.table({
    'v1 baseline (Secret + env)': {
      ms: +median(v1).toFixed(1),
      'µs/agent': +((median(v1) * 1000) / agents).toFixed(1),
      MiB: +(bytes.v1 / 2 ** 20).toFixed(2),
    },
    'v2, every layer': {
      ms: +median(v2).toFixed(1),
      'µs/agent': +((median(v2) * 1000) / agents).toFixed(1),
      MiB: +(bytes.v2 / 2 ** 20).toFixed(2),
    },
  });
  console.log(`ratio v2/v1: ${ratio.toFixed(2)}x`);
  return ratio;
}

async function controllerWrites(c: ControllerProcess): Promise<{ writes: number; reconciles: number }> {
  const s = parseSamples(await c.metrics());
  const writeVerbs = new Set(['create', 'update', 'patch', 'apply', 'delete']);
  return {
    writes: sum(
      s,
      'colony_controller_kubernetes_requests_total',
      (l) => l.resource !== 'leases' && writeVerbs.has(l.verb ?? ''),
    ),
    reconciles: sum(s, 'colony_controller_reconcile_duration_seconds_count'),
  };
}

interface OfficeFixture {
  namespace: string;
  office: string;
  bindings: { name: string; agent: string; m: IntegrationManifest; secretName: string }[];
}

/** One office as the API leaves it: Secrets, Integrations and AgentBindings; agents as StatefulSets. */
async function writeOffice(
  kc: KubeConfig,
  manifests: IntegrationManifest[],
  agents: number,
): Promise<OfficeFixture> {
  const runId = randomBytes(3).toString('hex');
  const office = `ib${runId}`;
  const namespace = `office-${office}`;
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const oc = new OfficeCluster(kc);
  await core.createNamespace({
    body: { metadata: { name: namespace, labels: { 'colony.ai/office': office }, annotations: onKwokNodes } },
  });
  for (let a = 0; a < agents; a++) {
    const name = `agent-${a}`;
    await apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: {
          name,
          labels: { 'colony.ai/agent': name },
          annotations: { [ANNOTATION_ROLES]: a === 0 ? 'support' : 'writer' },
        },
        spec: {
          serviceName: name,
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: 'agent', image: 'busybox' }] },
          },
        },
      },
    });
  }
  const bindings: OfficeFixture['bindings'] = [];
  for (const m of manifests) {
    const instanceLabel = instanceOf(m);
    const secretName = k8sSecretName(m.id, office, instanceLabel);
    await oc.saveSecret(
      renderIntegrationSecret({
        manifest: m,
        officeId: office,
        namespace,
        secretName,
        instanceLabel,
        data: credentials(m, office),
      }),
    );
    await oc.saveIntegration(namespace, integrationResourceName(m.id, instanceLabel), {
      integrationId: m.id,
      officeId: office,
      ...(instanceLabel ? { instanceLabel } : {}),
      secretName,
    });
    // Integrations limited to one agent (members.maxAgents) go to the first agent only.
    const limit = m.members?.maxAgents ?? agents;
    for (let a = 0; a < Math.min(agents, limit); a++)
      bindings.push({
        name: `agent-${a}-${integrationResourceName(m.id, instanceLabel)}`,
        agent: `agent-${a}`,
        m,
        secretName,
      });
  }
  return { namespace, office, bindings };
}

async function allInjected(kc: KubeConfig, f: OfficeFixture): Promise<boolean> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const list = (await custom.listNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: f.namespace,
    plural: 'agentbindings',
  })) as {
    items: { status?: { conditions?: { reason?: string; status?: string }[] } }[];
  };
  const injected = list.items.filter((b) =>
    (b.status?.conditions ?? []).some((c) => c.reason === 'Injected' && c.status === 'True'),
  );
  return injected.length === f.bindings.length;
}

async function bareApplies(kc: KubeConfig, namespace: string, count: number): Promise<number> {
  const objects = kc.makeApiClient(KubernetesObjectApi);
  const started = performance.now();
  await inPool(
    Array.from({ length: count }, (_, k) => k),
    2,
    (k) =>
      objects.patch(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `bare-${k % 40}`, namespace },
          data: { k: String(k) },
        },
        undefined,
        undefined,
        'colony-bench',
        true,
        PatchStrategy.ServerSideApply,
      ),
  );
  return performance.now() - started;
}

async function benchApply(
  kc: KubeConfig,
  manifests: IntegrationManifest[],
  o: IntegrationsBenchOptions,
): Promise<number | 'skipped'> {
  await installCrds();
  const oc = new OfficeCluster(kc);
  const f = await writeOffice(kc, manifests, o.agentsPerOffice);
  let controller: ControllerProcess | undefined;
  try {
    const started = performance.now();
    controller = await startControllerProcess({
      namespace: f.namespace,
      lease: `${f.namespace}/colony-ibench`,
    });
    await inPool(f.bindings, 4, (b) =>
      oc.saveBinding(
        f.namespace,
        b.name,
        { agentName: b.agent, integrationId: b.m.id, secretName: b.secretName, enabled: true },
        f.office,
      ),
    );
    const deadline = Date.now() + 120_000;
    while (!(await allInjected(kc, f))) {
      if (Date.now() > deadline)
        throw new Error('integrations bench: bindings not all Injected within 120 s');
      await sleep(100);
    }
    const readyMs = performance.now() - started;
    await sleep(1500);
    const rollout = await controllerWrites(controller);

    const toggled = f.bindings.find((b) => b.agent === 'agent-1') ?? f.bindings[0];
    if (!toggled) return 'skipped';
    const before = await controllerWrites(controller);
    for (let t = 0; t < o.toggles; t++) {
      const enabled = t % 2 === 1;
      await oc.saveBinding(
        f.namespace,
        toggled.name,
        { agentName: toggled.agent, integrationId: toggled.m.id, secretName: toggled.secretName, enabled },
        f.office,
      );
      // Wait for the controller to settle on this toggle before the next one.
      let last = -1;
      for (;;) {
        await sleep(300);
        const now = (await controllerWrites(controller)).writes;
        if (now === last) break;
        last = now;
      }
    }
    const after = await controllerWrites(controller);
    const perToggle = (after.writes - before.writes) / o.toggles;
    // The span also holds the bindings' own writes, so the baseline makes those too.
    const bareMs = await bareApplies(kc, f.namespace, rollout.writes + f.bindings.length);
    const ratio = readyMs / bareMs;
    console.log(
      `\n## integrations: apply-to-ready, one office (${manifests.length} integrations, ${o.agentsPerOffice} agents, ${f.bindings.length} bindings)`,
    );
    console.table({
      'bindings written + controller, start to all Injected': {
        ms: Math.round(readyMs),
        'API writes': rollout.writes + f.bindings.length,
        reconciles: rollout.reconciles,
      },
      'bare loop, same number of applies': {
        ms: Math.round(bareMs),
        'API writes': rollout.writes + f.bindings.length,
        reconciles: 0,
      },
    });
    console.log(
      `ratio apply-to-ready / bare writes: ${ratio.toFixed(2)}x (includes controller start, lease and cache sync)`,
    );
    console.log(
      `API writes per toggle: 1 by the API (the AgentBinding) + ${perToggle.toFixed(1)} by the controller, over ${o.toggles} toggles`,
    );
    return ratio;
  } finally {
    controller?.child.kill('SIGTERM');
    await controller?.exited;
    await kc
      .makeApiClient(CoreV1Api)
      .deleteNamespace({ name: f.namespace })
      .catch(() => {});
  }
}

export async function benchIntegrations(o: IntegrationsBenchOptions): Promise<GoalRow[]> {
  const manifests = benchManifests();
  // Targets: the layers cost under 10x the v1 render; apply-to-ready within 5x the bare writes.
  const rows = [atMost('render of every v2 layer', benchRender(manifests, o), 10, '× v1 render')];
  if (!process.env.KUBECONFIG) {
    console.log(
      '\nintegrations: apply-to-ready skipped (no KUBECONFIG; `npm run cluster:up` and export its last line)',
    );
    return rows;
  }
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const applyRatio = await benchApply(kc, manifests, o);
  if (applyRatio !== 'skipped')
    rows.push(atMost('apply-to-ready, one office', applyRatio, 5, '× bare writes'));
  return rows;
}
