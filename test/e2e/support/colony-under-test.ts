// The Colony the e2e stories talk to, in one of two shapes:
// - local (default): the chart is installed into a fresh namespace, so its CRDs, RBAC and
//   ServiceAccounts are real; the API and the controller then run as local processes authenticated
//   AS the chart's ServiceAccounts (TokenRequest), which proves the chart's RBAC is sufficient. The
//   chart's own pods only look Running on a kwok cluster (nothing executes there).
// - in-cluster (COLONY_E2E_IN_CLUSTER=1, kind in CI): the release someone installed is used as is;
//   the API is reached through `kubectl port-forward`.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { chartDir, helm, repoRoot, setJson, uniqueName } from '../../support/helm.ts';
import { kubeconfigPath, kubectlPath } from '../../support/kube.ts';
import { eventually } from './eventually.ts';
import { serviceAccountKubeconfig } from './service-account-kubeconfig.ts';

export interface ColonyUnderTest {
  mode: 'local' | 'in-cluster';
  /** Base URL of the API (office-manager API included). */
  apiUrl: string;
  bootstrapToken: string;
  releaseNamespace: string;
  stop(): Promise<void>;
  /** Output of the local processes, for failure messages. */
  logs(): string;
}

export const inCluster = process.env.COLONY_E2E_IN_CLUSTER === '1';

/** The chart's fullname rule: a release name that contains "colony" is used as is. */
const fullname = (release: string) => (release.includes('colony') ? release : `${release}-colony`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function httpOk(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${body}`);
  return body ? JSON.parse(body) : undefined;
}

async function readToken(admin: KubeConfig, namespace: string, secret: string): Promise<string> {
  if (process.env.COLONY_E2E_TOKEN) return process.env.COLONY_E2E_TOKEN;
  const s = await admin.makeApiClient(CoreV1Api).readNamespacedSecret({ name: secret, namespace });
  const value = s.data?.COLONY_BOOTSTRAP_TOKEN;
  if (!value) throw new Error(`Secret ${namespace}/${secret} has no COLONY_BOOTSTRAP_TOKEN`);
  return Buffer.from(value, 'base64').toString('utf8');
}

interface Spawned {
  child: ChildProcess;
  log: string;
}

function spawnLogged(name: string, args: string[], env: NodeJS.ProcessEnv, dir: string): Spawned {
  const log = join(dir, `${name}.log`);
  const fd = openSync(log, 'a');
  const child = spawn(args[0] ?? '', args.slice(1), { cwd: repoRoot, env, stdio: ['ignore', fd, fd] });
  return { child, log };
}

async function stopProcess(p: Spawned | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

const tail = (file: string) => {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-40).join('\n');
  } catch {
    return '';
  }
};

/** The release the kind workflow installed; the API through a port-forward. */
async function attachInCluster(admin: KubeConfig): Promise<ColonyUnderTest> {
  const namespace = process.env.COLONY_E2E_NAMESPACE ?? 'colony-system';
  const name = fullname(process.env.COLONY_E2E_RELEASE ?? 'colony');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'colony-e2e-'));
  const forward = spawnLogged(
    'port-forward',
    [
      kubectlPath(),
      '--kubeconfig',
      kubeconfigPath(),
      '-n',
      namespace,
      'port-forward',
      `svc/${name}-api`,
      `${port}:http`,
    ],
    process.env,
    dir,
  );
  const apiUrl = `http://127.0.0.1:${port}`;
  await eventually('the API answers through the port-forward', () => httpOk(`${apiUrl}/readyz`), {
    timeoutMs: 60_000,
  });
  return {
    mode: 'in-cluster',
    apiUrl,
    bootstrapToken: await readToken(admin, namespace, name),
    releaseNamespace: namespace,
    logs: () => tail(forward.log),
    stop: () => stopProcess(forward),
  };
}

/** Installs the chart (namespaced to the office) and runs API and controller as its ServiceAccounts. */
async function startLocal(admin: KubeConfig, officeNamespace: string): Promise<ColonyUnderTest> {
  const core = admin.makeApiClient(CoreV1Api);
  const prefix = process.env.COLONY_E2E_NAMESPACE_PREFIX ?? 'colony-e2e';
  const release = uniqueName('colony-e2e');
  const namespace = uniqueName(prefix);
  const name = fullname(release);
  const token = randomBytes(24).toString('base64url');
  await core.createNamespace({
    body: { metadata: { name: namespace, labels: { 'colony.ai/test': 'true' } } },
  });
  const dir = mkdtempSync(join(tmpdir(), 'colony-e2e-'));
  let controller: Spawned | undefined;
  let api: Spawned | undefined;
  const stop = async () => {
    await Promise.all([stopProcess(api), stopProcess(controller)]);
    try {
      helm(['uninstall', release, '-n', namespace, '--wait', '--timeout', '2m']);
    } finally {
      await core.deleteNamespace({ name: namespace }).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
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
      [process.execPath, 'controller/main.ts'],
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
      [process.execPath, 'api/main.ts'],
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
      apiUrl,
      bootstrapToken: token,
      releaseNamespace: namespace,
      logs: () => `--- controller\n${tail(procs.controller.log)}\n--- api\n${tail(procs.api.log)}`,
      stop,
    };
  } catch (err) {
    const logs = [controller, api].map((p) => (p ? tail(p.log) : '')).join('\n');
    await stop().catch(() => {});
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}

export function startColony(admin: KubeConfig, officeNamespace: string): Promise<ColonyUnderTest> {
  return inCluster ? attachInCluster(admin) : startLocal(admin, officeNamespace);
}
