// Runs `npm run controller` (main/controller.ts) as a real child process against the test cluster,
// scoped to one namespace, so tests can kill it, restart it and run two of them for failover.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { kubeconfigPath } from './kube.ts';

export interface ControllerProcess {
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
  /** The /healthz identity, which is the Lease holder identity while it leads. */
  identity(): Promise<string>;
  ready(): Promise<{ status: string; leader?: boolean } | undefined>;
  metrics(): Promise<string>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startControllerProcess(opts: {
  /** Namespaced mode; the whole cluster when omitted. */
  namespace?: string;
  lease: string;
  env?: Record<string, string>;
}): Promise<ControllerProcess> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KUBECONFIG: kubeconfigPath(),
    COLONY_CONTROLLER_LEASE: opts.lease,
    COLONY_CONTROLLER_PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // Providers are not reachable from tests: the credential checks would only time out.
    COLONY_CREDENTIAL_CHECKS: 'false',
    ...opts.env,
  };
  if (opts.namespace) env.COLONY_WATCH_NAMESPACE = opts.namespace;
  else delete env.COLONY_WATCH_NAMESPACE;
  const child = spawn(process.execPath, [new URL('../../main/controller.ts', import.meta.url).pathname], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  return {
    child,
    port,
    exited,
    identity: async () => ((await (await fetch(`${base}/healthz`)).json()) as { identity: string }).identity,
    ready: async () => {
      const res = await fetch(`${base}/readyz`).catch(() => undefined);
      return res ? ((await res.json()) as { status: string; leader?: boolean }) : undefined;
    },
    metrics: async () => (await fetch(`${base}/metrics`)).text(),
  };
}
