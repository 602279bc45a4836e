// The opt-in fast mode (COLONY_E2E_MODE=local): the chart is installed into a fresh namespace whose
// pods kwok only simulates, so its CRDs, RBAC and ServiceAccounts are real; the API and the controller
// then run as local processes authenticated AS the chart's ServiceAccounts (TokenRequest), which
// proves the chart's RBAC is sufficient. Nothing runs in a container: the stories that look inside
// processes are skipped in this mode.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { chartDir, helm, setJson, uniqueName } from '../../support/helm.ts';
import { onKwokNodes } from '../../support/kube.ts';
import type { ColonyUnderTest } from './colony-under-test.ts';
import { eventually } from './eventually.ts';
import { freePort, httpOk, type Spawned, spawnLogged, stopProcess, tail } from './processes.ts';
import { serviceAccountKubeconfig } from './service-account-kubeconfig.ts';

/** The chart's fullname rule: a release name that contains "colony" is used as is. */
export const fullname = (release: string) => (release.includes('colony') ? release : `${release}-colony`);

/** Uninstalls a test's release, then deletes its namespace and scratch folder whatever happened. */
export async function removeRelease(core: CoreV1Api, release: string, namespace: string, dir: string) {
  try {
    helm(['uninstall', release, '-n', namespace, '--wait', '--timeout', '2m']);
  } finally {
    await core.deleteNamespace({ name: namespace }).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startLocal(admin: KubeConfig, officeNamespace: string): Promise<ColonyUnderTest> {
  const core = admin.makeApiClient(CoreV1Api);
  const prefix = process.env.COLONY_E2E_NAMESPACE_PREFIX ?? 'colony-e2e';
  const release = uniqueName('colony-e2e');
  const namespace = uniqueName(prefix);
  const name = fullname(release);
  const token = randomBytes(24).toString('base64url');
  await core.createNamespace({
    body: { metadata: { name: namespace, labels: { 'colony.ai/test': 'true' }, annotations: onKwokNodes } },
  });
  const dir = mkdtempSync(join(tmpdir(), 'colony-e2e-'));
  let controller: Spawned | undefined;
  let api: Spawned | undefined;
  const stop = async () => {
    await Promise.all([stopProcess(api), stopProcess(controller)]);
    await removeRelease(core, release, namespace, dir);
  };
  try {
    helm([
      'install',
      release,
      chartDir,
      '-n',
      namespace,
      '--wait',
      '--timeout',
      '5m',
      // The shared local cluster runs other controllers: this release watches only its office.
      ...setJson({ watchNamespace: officeNamespace, 'secrets.bootstrapToken': token }),
    ]);
    const lease = `${namespace}/${name}-controller`;
    const base = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: 'info',
      COLONY_CONTROLLER_LEASE: lease,
      COLONY_WATCH_NAMESPACE: officeNamespace,
      // Providers are not reachable from the local cluster: the credential checks would only time out.
      COLONY_CREDENTIAL_CHECKS: 'false',
    };
    const controllerPort = await freePort();
    controller = spawnLogged(
      'controller',
      [process.execPath, 'main/controller.ts'],
      {
        ...base,
        KUBECONFIG: await serviceAccountKubeconfig(
          admin,
          namespace,
          `${name}-controller`,
          join(dir, 'ctl.kc'),
        ),
        COLONY_CONTROLLER_PORT: String(controllerPort),
        HOST: '127.0.0.1',
      },
      dir,
    );
    const apiPort = await freePort();
    api = spawnLogged(
      'api',
      [process.execPath, 'main/api.ts'],
      {
        ...base,
        KUBECONFIG: await serviceAccountKubeconfig(admin, namespace, `${name}-api`, join(dir, 'api.kc')),
        PORT: String(apiPort),
        HOST: '127.0.0.1',
        COLONY_RUN_CONTROLLER: 'false',
        COLONY_BOOTSTRAP_TOKEN: token,
        COLONY_DATA_DIR: join(dir, 'data'),
      },
      dir,
    );
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await eventually('the controller leads with synced caches', async () => {
      const ready = (await httpOk(`http://127.0.0.1:${controllerPort}/readyz`)) as { leader?: boolean };
      if (!ready.leader) throw new Error('not leading yet');
    });
    await eventually('the API is ready', () => httpOk(`${apiUrl}/readyz`));
    const procs = { api, controller };
    return {
      mode: 'local',
      realContainers: false,
      apiUrl,
      managerUrl: apiUrl,
      bootstrapToken: token,
      releaseNamespace: namespace,
      image: undefined,
      inCluster: undefined,
      imageOverrides: {},
      logs: () => `--- controller\n${tail(procs.controller.log)}\n--- api\n${tail(procs.api.log)}`,
      stop,
    };
  } catch (err) {
    const logs = [controller, api].map((p) => (p ? tail(p.log) : '')).join('\n');
    await stop().catch(() => {});
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}
