// The Colony the e2e stories talk to, in one of three modes (COLONY_E2E_MODE):
// - install (default): the chart is `helm install`ed with the real Colony image (COLONY_E2E_IMAGE,
//   built by `npm run image`) into a fresh namespace: two controller replicas and the API as real
//   pods, the API on an in-cluster PostgreSQL the test installs beside it, namespaced to the test's
//   office. Every Colony pod must become Ready through its own probes and `helm test` must pass;
//   the API is reached through `kubectl port-forward`.
// - attach (COLONY_E2E_IN_CLUSTER=1, the kind workflow): the release someone installed is used as is
//   (COLONY_E2E_NAMESPACE, COLONY_E2E_RELEASE); what the stories need (image, overrides, manager port)
//   is read from it.
// - local (opt-in, fast): see local-colony.ts; agents and services are only simulated there.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { chartDir, helm, setJson, uniqueName } from '../../support/helm.ts';
import { kubeconfigPath, kubectlPath } from '../../support/kube.ts';
import { installPostgres } from './e2e-postgres.ts';
import { eventually } from './eventually.ts';
import { fullname, removeRelease, startLocal } from './local-colony.ts';
import { describePods, isReady } from './pod-status.ts';
import { freePort, httpOk, spawnPortForward, supervise, tail } from './processes.ts';

export type ColonyMode = 'install' | 'attach' | 'local';

export interface ColonyUnderTest {
  mode: ColonyMode;
  /** Agents and per-office services really run (false in local mode, where kwok simulates them). */
  realContainers: boolean;
  /** Base URL of the public API, from this machine. */
  apiUrl: string;
  /** Base URL of the office-manager API: its own listener when the release has a manager port. */
  managerUrl: string;
  bootstrapToken: string;
  releaseNamespace: string;
  /** The Colony image the release runs; the stories' agents run it too. Unset in local mode. */
  image: string | undefined;
  /** The API as pods reach it (the Service), with the manager port's URL when there is one. */
  inCluster: { apiUrl: string; managerUrl: string | undefined } | undefined;
  /** COLONY_IMAGE_OVERRIDES of the controller. */
  imageOverrides: Record<string, string>;
  /** Install mode: ms from the `helm install` call until every API and controller pod was Ready. */
  readyMs?: number;
  stop(): Promise<void>;
  /** Recent output of the Colony processes or pods, for failure messages. */
  logs(): string;
}

/** The image the tailscale manifest names; the stories swap it for the stand-in service. */
export const TAILSCALE_IMAGE = 'tailscale/tailscale:stable';
/** The office-manager API's own port in the installed release (api.managerPort). */
const MANAGER_PORT = 9090;

function selectMode(): ColonyMode {
  const mode = process.env.COLONY_E2E_MODE;
  if (mode === 'install' || mode === 'attach' || mode === 'local') return mode;
  if (mode) throw new Error(`COLONY_E2E_MODE must be install, attach or local, not ${mode}`);
  return process.env.COLONY_E2E_IN_CLUSTER === '1' ? 'attach' : 'install';
}

export const colonyMode: ColonyMode = selectMode();

export const missingImageMessage =
  'COLONY_E2E_IMAGE is not set: the e2e tier installs the chart with the Colony image. Build it with ' +
  '`npm run image` (its last line is IMAGE=<ref>), then `bash scripts/image/e2e-images.sh`, or run ' +
  '`make test`; COLONY_E2E_MODE=local runs the fast, simulated mode instead.';

async function readToken(admin: KubeConfig, namespace: string, secret: string): Promise<string> {
  if (process.env.COLONY_E2E_TOKEN) return process.env.COLONY_E2E_TOKEN;
  const s = await admin.makeApiClient(CoreV1Api).readNamespacedSecret({ name: secret, namespace });
  const value = s.data?.COLONY_BOOTSTRAP_TOKEN;
  if (!value) throw new Error(`Secret ${namespace}/${secret} has no COLONY_BOOTSTRAP_TOKEN`);
  return Buffer.from(value, 'base64').toString('utf8');
}

/** repository and tag of `<repository>:<tag>` (the chart takes them apart). */
export function splitImage(image: string): { repository: string; tag: string } {
  const colon = image.lastIndexOf(':');
  if (image.includes('@') || colon <= image.lastIndexOf('/'))
    throw new Error(`COLONY_E2E_IMAGE must be <repository>:<tag>, got ${image}`);
  return { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
}

function podLogs(namespace: string, release: string): string {
  try {
    return execFileSync(
      kubectlPath(),
      [
        '--kubeconfig',
        kubeconfigPath(),
        '-n',
        namespace,
        'logs',
        '-l',
        `app.kubernetes.io/instance=${release}`,
        '--all-containers',
        '--prefix',
        '--tail=40',
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
  } catch (err) {
    return `(no pod logs: ${(err as Error).message})`;
  }
}

/** Every Colony pod of the release is Ready by its own probes: the expected number of each. */
async function waitForColonyPods(admin: KubeConfig, namespace: string, release: string): Promise<void> {
  // Looked at 4 times a second: test/bench/real-node.bench.ts times installs with this wait.
  const core = admin.makeApiClient(CoreV1Api);
  const apps = admin.makeApiClient(AppsV1Api);
  const selector = `app.kubernetes.io/instance=${release},app.kubernetes.io/component in (controller,api)`;
  await eventually(
    'every Colony pod is Ready',
    async () => {
      const deployments = (
        await apps.listNamespacedDeployment({ namespace, labelSelector: selector })
      ).items.map((d) => d.spec?.replicas ?? 0);
      const wanted = deployments.reduce((a, b) => a + b, 0);
      const pods = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items;
      const live = pods.filter((p) => !p.metadata?.deletionTimestamp);
      if (deployments.length < 2 || live.length !== wanted || !live.every(isReady))
        throw new Error(await describePods(core, namespace, selector));
    },
    { timeoutMs: 300_000, intervalMs: 250 },
  );
}

/** `kubectl port-forward` to the API Service: the public port and, if any, the manager port. */
async function forwardApi(namespace: string, name: string, managerPort: number | undefined, dir: string) {
  const port = await freePort();
  const localManager = managerPort ? await freePort() : undefined;
  const ports = [`${port}:http`, ...(localManager ? [`${localManager}:http-manager`] : [])];
  const forward = supervise(() => spawnPortForward('port-forward', namespace, `svc/${name}-api`, ports, dir));
  const apiUrl = `http://127.0.0.1:${port}`;
  const managerUrl = localManager ? `http://127.0.0.1:${localManager}` : apiUrl;
  await eventually('the API answers through the port-forward', () => httpOk(`${apiUrl}/readyz`), {
    timeoutMs: 60_000,
  });
  return { forward, apiUrl, managerUrl };
}

function controllerEnv(d: V1Deployment, name: string): string | undefined {
  return d.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === name)?.value;
}

/** What the stories need to know about a release, read from its objects. */
async function describeRelease(admin: KubeConfig, namespace: string, name: string) {
  const apps = admin.makeApiClient(AppsV1Api);
  const core = admin.makeApiClient(CoreV1Api);
  const controller = await apps.readNamespacedDeployment({ name: `${name}-controller`, namespace });
  const service = await core.readNamespacedService({ name: `${name}-api`, namespace });
  const port = (p: string) => service.spec?.ports?.find((x) => x.name === p)?.port;
  const host = `http://${name}-api.${namespace}.svc`;
  const managerPort = port('http-manager');
  return {
    image: controller.spec?.template.spec?.containers[0]?.image,
    imageOverrides: JSON.parse(controllerEnv(controller, 'COLONY_IMAGE_OVERRIDES') ?? '{}') as Record<
      string,
      string
    >,
    managerPort,
    inCluster: {
      apiUrl: `${host}:${port('http') ?? 80}`,
      managerUrl: managerPort ? `${host}:${managerPort}` : undefined,
    },
  };
}

/** The release the kind workflow installed; the API through a port-forward. */
async function attach(admin: KubeConfig): Promise<ColonyUnderTest> {
  const namespace = process.env.COLONY_E2E_NAMESPACE ?? 'colony-system';
  const release = process.env.COLONY_E2E_RELEASE ?? 'colony';
  const name = fullname(release);
  const dir = mkdtempSync(join(tmpdir(), 'colony-e2e-'));
  await waitForColonyPods(admin, namespace, release);
  const info = await describeRelease(admin, namespace, name);
  const { forward, apiUrl, managerUrl } = await forwardApi(namespace, name, info.managerPort, dir);
  return {
    mode: 'attach',
    realContainers: true,
    apiUrl,
    managerUrl,
    bootstrapToken: await readToken(admin, namespace, name),
    releaseNamespace: namespace,
    image: info.image,
    inCluster: info.inCluster,
    imageOverrides: info.imageOverrides,
    logs: () => `${podLogs(namespace, release)}\n--- port-forward\n${tail(forward.current().log)}`,
    stop: () => forward.stop(),
  };
}

export interface ChartInstall {
  release: string;
  /** The release's namespace; it must exist. */
  namespace: string;
  /** The Colony image, <repository>:<tag>, already on the node (pull policy Never). */
  image: string;
  /** The one office namespace the release watches. */
  officeNamespace: string;
  bootstrapToken: string;
  databaseUrl: string;
}

/**
 * `helm install` of the chart as the e2e tier configures it, then waits until every API and
 * controller pod is Ready by its own probes. Answers the ms from the helm install call until then.
 */
export async function installChart(admin: KubeConfig, c: ChartInstall): Promise<number> {
  const { repository, tag } = splitImage(c.image);
  const serviceImage = process.env.COLONY_E2E_SERVICE_IMAGE ?? 'colony.local/e2e-service:dev';
  const started = performance.now();
  helm([
    'install',
    c.release,
    chartDir,
    '-n',
    c.namespace,
    // No --wait: waitForColonyPods waits, and stops at once when an image is not on the node.
    ...setJson({
      'image.repository': repository,
      'image.tag': tag,
      // Only local images exist here: a missing one must fail at once, not after pull retries.
      'image.pullPolicy': 'Never',
      'controller.replicas': 2,
      // The shared local cluster runs other controllers: this release watches only its office.
      watchNamespace: c.officeNamespace,
      'secrets.bootstrapToken': c.bootstrapToken,
      'secrets.databaseUrl': c.databaseUrl,
      'api.managerPort': MANAGER_PORT,
      'controller.imageOverrides': { [TAILSCALE_IMAGE]: serviceImage },
      // The agents' init image, built beside the Colony image with the same tag (npm run image).
      'controller.initImage.repository': `${repository}-init`,
      'controller.initImage.tag': tag,
      // No provider is reachable from here: the credential checks would only time out.
      'controller.extraEnv': [{ name: 'COLONY_CREDENTIAL_CHECKS', value: 'false' }],
    }),
  ]);
  await waitForColonyPods(admin, c.namespace, c.release);
  return performance.now() - started;
}

/**
 * Installs the chart with the real image (and PostgreSQL for it) and checks it with `helm test`.
 * The image defaults to COLONY_E2E_IMAGE.
 */
export async function installColony(
  admin: KubeConfig,
  officeNamespace: string,
  image = process.env.COLONY_E2E_IMAGE,
): Promise<ColonyUnderTest> {
  if (!image) throw new Error(missingImageMessage);
  splitImage(image); // a malformed reference fails before anything is created
  const postgresImage = process.env.COLONY_E2E_POSTGRES_IMAGE ?? 'colony.local/e2e-postgres:dev';
  const core = admin.makeApiClient(CoreV1Api);
  const release = uniqueName('colony-e2e');
  const namespace = uniqueName(process.env.COLONY_E2E_NAMESPACE_PREFIX ?? 'colony-e2e');
  const name = fullname(release);
  const token = randomBytes(24).toString('base64url');
  const dir = mkdtempSync(join(tmpdir(), 'colony-e2e-'));
  await core.createNamespace({
    body: { metadata: { name: namespace, labels: { 'colony.ai/test': 'true' } } },
  });
  let forward: ReturnType<typeof supervise> | undefined;
  const stop = async () => {
    await forward?.stop();
    // COLONY_E2E_KEEP=1 leaves the release and its namespace for a look afterwards.
    if (process.env.COLONY_E2E_KEEP === '1') return;
    await removeRelease(core, release, namespace, dir);
  };
  try {
    const postgres = await installPostgres(admin, namespace, postgresImage);
    const readyMs = await installChart(admin, {
      release,
      namespace,
      image,
      officeNamespace,
      bootstrapToken: token,
      databaseUrl: postgres.url,
    });
    const tested = helm(['test', release, '-n', namespace, '--timeout', '5m']);
    if (!/Phase:\s+Succeeded/.test(tested)) throw new Error(`helm test did not succeed:\n${tested}`);
    const info = await describeRelease(admin, namespace, name);
    const forwarded = await forwardApi(namespace, name, info.managerPort, dir);
    forward = forwarded.forward;
    return {
      mode: 'install',
      realContainers: true,
      apiUrl: forwarded.apiUrl,
      managerUrl: forwarded.managerUrl,
      bootstrapToken: token,
      releaseNamespace: namespace,
      image,
      inCluster: info.inCluster,
      imageOverrides: info.imageOverrides,
      readyMs,
      logs: () => podLogs(namespace, release),
      stop,
    };
  } catch (err) {
    const logs = podLogs(namespace, release);
    await stop().catch(() => {});
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}

export function startColony(admin: KubeConfig, officeNamespace: string): Promise<ColonyUnderTest> {
  if (colonyMode === 'attach') return attach(admin);
  if (colonyMode === 'local') return startLocal(admin, officeNamespace);
  return installColony(admin, officeNamespace);
}
