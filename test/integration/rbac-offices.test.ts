// rbac.scope=offices against the real API server: the chart's RBAC applied, the API and the
// controller running with their ServiceAccounts' own tokens. Outside office namespaces both are
// refused; an office PUT through the API grants them their rights there; the controller, started
// before the office existed, injects an agent in it and meters its pods; deleting the office takes
// the rights back.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppsV1Api,
  CoreV1Api,
  EventsV1Api,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
  type V1Deployment,
  type V1RoleBinding,
  type V1StatefulSet,
} from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ClusterLedgers } from '../../api/commerce/usage/office-ledgers.ts';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import {
  emptyLedger,
  ledgerConfigMap,
  periodMilliCredits,
  USAGE_CONFIGMAP,
  usagePeriod,
} from '../../cluster/usage-ledger.ts';
import { UsageMeter } from '../../controller/metering/usage-meter.ts';
import { type RunningController, runController } from '../../controller/run-controller.ts';
import { silentLogger } from '../../controller/runtime/logger.ts';
import type { MultiNamespaceInformer } from '../../controller/runtime/multi-namespace-informer.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { eventually } from '../support/eventually.ts';
import { chartDir, helm, setJson, uniqueName } from '../support/helm.ts';
import { installCrds, kubeConfig, kubectl, withNamespace } from '../support/kube.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'rbac-offices-bootstrap-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const release = uniqueName('rbo');
const fullname = `${release}-colony`;
const officeId = uniqueName('rbac');
const officeNs = `office-${officeId}`;
const RBAC_KINDS = new Set([
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);

let rel: Awaited<ReturnType<typeof withNamespace>>;
let other: Awaited<ReturnType<typeof withNamespace>>;
/** Labelled as an office by hand before the controller starts, never PUT: Colony has no rights there. */
let handMade: Awaited<ReturnType<typeof withNamespace>>;
let rendered: KubernetesObject[] = [];
let dir: string;
let api: { kc: KubeConfig; file: string };
let ctl: { kc: KubeConfig; file: string };
let server: TestServer;
let controller: RunningController;
const admin = () => kubeConfig();
const status = (err: unknown) => (err as { code?: number }).code;
/** The HTTP status a call ends with: 200 when it succeeds. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err) => status(err) ?? -1,
  );

/** A kubeconfig that authenticates with a ServiceAccount token only (no client certificate). */
function tokenKubeConfig(sa: string): { kc: KubeConfig; file: string } {
  const token = kubectl(['-n', rel.name, 'create', 'token', sa, '--duration=1h']).trim();
  const cluster = admin().getCurrentCluster();
  if (!cluster) throw new Error('no current cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: 'c' }],
    users: [{ name: sa, token }],
    contexts: [{ name: sa, cluster: 'c', user: sa }],
    currentContext: sa,
  });
  const file = join(dir, `${sa}.kubeconfig`);
  writeFileSync(file, kc.exportConfig());
  return { kc, file };
}

const deployment = (name: string): V1Deployment => ({
  metadata: { name },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    },
  },
});

const officeBinding = (namespace: string): V1RoleBinding => ({
  metadata: { name: `${fullname}-office-api`, namespace },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${fullname}-office-api` },
  subjects: [{ kind: 'ServiceAccount', name: `${fullname}-api`, namespace: rel.name }],
});

/** What each ServiceAccount may do in a namespace, by real requests (a dry-run create is authorised too). */
async function access(namespace: string) {
  const apiCore = api.kc.makeApiClient(CoreV1Api);
  const ctlCore = ctl.kc.makeApiClient(CoreV1Api);
  const ctlApps = ctl.kc.makeApiClient(AppsV1Api);
  return {
    apiReadsSecret: await outcome(apiCore.readNamespacedSecret({ name: 'absent', namespace })),
    apiCreatesSecret: await outcome(
      apiCore.createNamespacedSecret({ namespace, dryRun: 'All', body: { metadata: { name: 's' } } }),
    ),
    controllerListsSecrets: await outcome(ctlCore.listNamespacedSecret({ namespace })),
    controllerCreatesDeployment: await outcome(
      ctlApps.createNamespacedDeployment({ namespace, dryRun: 'All', body: deployment('d') }),
    ),
  };
}

beforeAll(async () => {
  await installCrds();
  dir = mkdtempSync(join(tmpdir(), 'colony-rbac-'));
  rel = await withNamespace('rbo-rel');
  other = await withNamespace('rbo-other');
  handMade = await withNamespace('rbo-hand');
  await admin()
    .makeApiClient(CoreV1Api)
    .patchNamespace({
      name: handMade.name,
      body: [{ op: 'add', path: '/metadata/labels/colony.ai~1office', value: 'hand' }],
    });
  const all = parseAllDocuments(
    helm([
      'template',
      release,
      chartDir,
      '-n',
      rel.name,
      ...setJson({ rbac: { scope: 'offices' }, 'secrets.bootstrapToken': TOKEN }),
    ]),
  )
    .map((d) => d.toJSON() as KubernetesObject | null)
    .filter((o): o is KubernetesObject => !!o);
  rendered = all.filter((o) => RBAC_KINDS.has(o.kind ?? '') && !o.metadata?.annotations?.['helm.sh/hook']);
  // The API runs with the environment the chart gives its Deployment.
  const apiDeployment = all.find(
    (o) => o.kind === 'Deployment' && o.metadata?.name === `${fullname}-api`,
  ) as V1Deployment;
  const env = (name: string) =>
    apiDeployment.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === name)?.value ?? '';
  const objects = admin().makeApiClient(KubernetesObjectApi);
  for (const o of rendered) {
    if (o.kind !== 'ClusterRole' && o.kind !== 'ClusterRoleBinding' && !o.kind?.startsWith('Validating'))
      o.metadata = { ...o.metadata, namespace: o.metadata?.namespace ?? rel.name };
    await objects.patch(o, undefined, undefined, 'colony-tests', true, 'application/apply-patch+yaml');
  }
  api = tokenKubeConfig(`${fullname}-api`);
  ctl = tokenKubeConfig(`${fullname}-controller`);
  server = await startTestServer({
    KUBECONFIG: api.file,
    COLONY_BOOTSTRAP_TOKEN: TOKEN,
    COLONY_RBAC_SCOPE: env('COLONY_RBAC_SCOPE'),
    COLONY_OFFICE_GRANTS: env('COLONY_OFFICE_GRANTS'),
  });
  controller = await runController({
    kc: ctl.kc,
    registry: loadRegistry(new URL('../../integrations', import.meta.url).pathname),
    lease: `${rel.name}/${fullname}-controller`,
    log: pino({ level: 'silent' }),
    rbacScope: 'offices',
  });
  await eventually(async () => controller.isLeader() && controller.isReady(), 30_000);
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await server?.close();
  const core = admin().makeApiClient(CoreV1Api);
  await core.deleteNamespace({ name: officeNs }).catch(() => {});
  const objects = admin().makeApiClient(KubernetesObjectApi);
  for (const o of rendered.filter((o) => !o.metadata?.namespace)) await objects.delete(o).catch(() => {});
  await other?.dispose();
  await handMade?.dispose();
  await rel?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('rbac.scope=offices', () => {
  it('refuses both ServiceAccounts Secrets and Deployments in a namespace that is no office', async () => {
    expect(await access(other.name)).toEqual({
      apiReadsSecret: 403,
      apiCreatesSecret: 403,
      controllerListsSecrets: 403,
      controllerCreatesDeployment: 403,
    });
    expect(await outcome(ctl.kc.makeApiClient(CoreV1Api).listSecretForAllNamespaces())).toBe(403);
    expect(await outcome(api.kc.makeApiClient(CoreV1Api).listSecretForAllNamespaces())).toBe(403);
  });

  it('keeps the API from granting itself rights outside offices', async () => {
    const apiRbac = api.kc.makeApiClient(RbacAuthorizationV1Api);
    // Another role: RBAC's escalation check (the API has `bind` on the two office roles only).
    const admin: V1RoleBinding = {
      ...officeBinding(other.name),
      metadata: { name: 'grab', namespace: other.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    };
    expect(await outcome(apiRbac.createNamespacedRoleBinding({ namespace: other.name, body: admin }))).toBe(
      403,
    );
    // An office role outside an office namespace: the office-grants admission policy (it may take a
    // moment to be loaded after it is created).
    await eventually(
      async () =>
        (await outcome(
          apiRbac.createNamespacedRoleBinding({
            namespace: other.name,
            body: officeBinding(other.name),
            dryRun: 'All',
          }),
        )) === 403,
      30_000,
    );
    // Making a namespace an office takes a label the API may not set outside its offices.
    const objects = api.kc.makeApiClient(KubernetesObjectApi);
    const label = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: other.name, labels: { 'colony.ai/office': 'x' } },
    };
    expect(
      await outcome(
        objects.patch(label, undefined, undefined, 'colony-tests', undefined, 'application/merge-patch+json'),
      ),
    ).toBe(403);
  });

  it('grants both their rights in an office created through the API, and only there', async () => {
    const res = await server.app.inject({ method: 'PUT', url: `/api/v1/offices/${officeId}`, headers: auth });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ officeId, namespace: officeNs });
    expect(await access(officeNs)).toEqual({
      apiReadsSecret: 404,
      apiCreatesSecret: 200,
      controllerListsSecrets: 200,
      controllerCreatesDeployment: 200,
    });
    expect((await access(other.name)).controllerListsSecrets).toBe(403);
    // Enabling an integration with required roles reads the agent's workload.
    expect(await new OfficeCluster(api.kc).agentRoles(officeNs, 'nobody')).toBeUndefined();
    await expect(new OfficeCluster(api.kc).agentRoles(other.name, 'nobody')).rejects.toMatchObject({
      code: 403,
    });
    const again = await server.app.inject({
      method: 'PUT',
      url: `/api/v1/offices/${officeId}`,
      headers: auth,
    });
    expect(again.statusCode).toBe(200);
    const bindings = await admin()
      .makeApiClient(RbacAuthorizationV1Api)
      .listNamespacedRoleBinding({ namespace: officeNs });
    expect(bindings.items.map((b) => b.metadata?.name).sort()).toEqual([
      `${fullname}-office-api`,
      `${fullname}-office-controller`,
    ]);
  });

  it('lets the controller, started before the office, inject an agent there and record its Event', async () => {
    const agent: V1StatefulSet = {
      metadata: { name: 'scout', labels: { 'colony.ai/agent': 'scout' } },
      spec: {
        serviceName: 'scout',
        replicas: 0,
        selector: { matchLabels: { app: 'scout' } },
        template: {
          metadata: { labels: { app: 'scout' } },
          spec: { containers: [{ name: 'agent', image: 'busybox' }] },
        },
      },
    };
    await admin().makeApiClient(AppsV1Api).createNamespacedStatefulSet({ namespace: officeNs, body: agent });
    const saved = await server.app.inject({
      method: 'POST',
      url: `/api/v1/offices/${officeId}/integrations/openai/secret`,
      headers: auth,
      payload: { data: { OPENAI_API_KEY: 'sk-offices-mode' } },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const toggled = await server.app.inject({
      method: 'POST',
      url: `/api/v1/offices/${officeId}/integrations/openai/agents/scout`,
      headers: auth,
      payload: { enabled: true, secretName: `openai-${officeId}` },
    });
    expect(toggled.statusCode, toggled.body).toBe(200);
    const env = async () =>
      (
        await admin()
          .makeApiClient(AppsV1Api)
          .readNamespacedStatefulSet({ name: 'scout', namespace: officeNs })
      ).spec?.template.spec?.containers[0]?.env?.map((e) => e.name) ?? [];
    await eventually(async () => (await env()).includes('OPENAI_API_KEY'), 30_000);
    const events = await eventually(async () => {
      const list = await admin().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: officeNs });
      const ours = list.items.filter((e) => e.reportingController === 'colony.ai/controller');
      return ours.length ? ours : undefined;
    });
    expect(events[0]?.regarding?.kind).toBe('AgentBinding');
    expect(controller.isReady()).toBe(true);
  });

  it('lists Colony resources office by office, passing over a namespace labelled by hand and never PUT', async () => {
    const everywhere = await new OfficeCluster(api.kc, { officesOnly: true }).listIntegrations();
    expect(everywhere.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`)).toContain(
      `${officeNs}/openai`,
    );
    expect(await outcome(new OfficeCluster(api.kc).listIntegrations())).toBe(403);
  });

  it("meters an agent pod into the office ledger with the controller's rights, which the API may only read", async () => {
    const core = admin().makeApiClient(CoreV1Api);
    // No scheduler takes it (the office namespace has no kwok annotation); its status is set as a kubelet would.
    await core.createNamespacedPod({
      namespace: officeNs,
      body: {
        metadata: { name: 'scout-0', labels: { 'colony.ai/agent': 'scout' } },
        spec: { schedulerName: 'nobody', containers: [{ name: 'agent', image: 'busybox' }] },
      },
    });
    const startTime = new Date(Date.now() - 3_600_000).toISOString();
    await core.patchNamespacedPodStatus({
      name: 'scout-0',
      namespace: officeNs,
      body: [{ op: 'add', path: '/status', value: { phase: 'Running', startTime } }],
    });
    const pods = controller.current()?.view.pods;
    if (!pods) throw new Error('no controller term');
    await eventually(async () => pods.list().some((p) => p.status?.startTime));
    const meter = new UsageMeter({ kc: ctl.kc, pods, intervalMs: 3_600_000, log: silentLogger });
    expect(await meter.flush()).toMatchObject({ writes: 1, conflicts: 0 });
    // The second pass replaces the ledger: `update` on colony-usage.
    await eventually(async () => (await meter.flush()).writes === 1, 5_000);
    const ledger = await new ClusterLedgers(api.kc).ledgerOf(officeId);
    expect(periodMilliCredits(ledger ?? emptyLedger(), usagePeriod(Date.now()))).toBeGreaterThanOrEqual(1000);
    const body = ledgerConfigMap(officeNs, emptyLedger());
    const apiCore = api.kc.makeApiClient(CoreV1Api);
    expect(
      await outcome(apiCore.replaceNamespacedConfigMap({ name: USAGE_CONFIGMAP, namespace: officeNs, body })),
    ).toBe(403);
    const other = { ...body, metadata: { ...body.metadata, name: 'someone-else' } };
    const ctlCore = ctl.kc.makeApiClient(CoreV1Api);
    expect(
      await outcome(
        ctlCore.replaceNamespacedConfigMap({ name: 'someone-else', namespace: officeNs, body: other }),
      ),
    ).toBe(403);
  });

  it('became ready although an office it knew at start-up refuses it, and still watches that office', () => {
    const secrets = controller.current()?.view.secrets as unknown as MultiNamespaceInformer<KubernetesObject>;
    expect(secrets.namespaces()).toContain(handMade.name);
    expect(controller.isReady()).toBe(true);
  });

  it('refuses to delete an office that still has integrations, then takes the rights back', async () => {
    const del = () =>
      server.app.inject({ method: 'DELETE', url: `/api/v1/offices/${officeId}`, headers: auth });
    const refused = await del();
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toContain('still has integrations (openai)');
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/offices/${officeId}/integrations/openai/secret`,
      headers: auth,
    });
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await del()).statusCode).toBe(204);
    const core = admin().makeApiClient(CoreV1Api);
    expect(
      (await core.readNamespace({ name: officeNs })).metadata?.labels?.['colony.ai/office'],
    ).toBeUndefined();
    const bindings = await admin()
      .makeApiClient(RbacAuthorizationV1Api)
      .listNamespacedRoleBinding({ namespace: officeNs });
    expect(bindings.items).toEqual([]);
    await eventually(async () => (await access(officeNs)).controllerListsSecrets === 403);
    expect(await access(officeNs)).toEqual({
      apiReadsSecret: 403,
      apiCreatesSecret: 403,
      controllerListsSecrets: 403,
      controllerCreatesDeployment: 403,
    });
    expect((await del()).statusCode).toBe(404);
  });
});
