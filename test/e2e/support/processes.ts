// Local child processes the e2e tier runs (kubectl port-forward, the API and controller in local mode):
// started with their output in a log file, stopped gently, and free ports to give them.
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../support/helm.ts';
import { kubeconfigPath, kubectlPath } from '../../support/kube.ts';

// One free-port finder for all the tests' processes.
export { freePort } from '../../support/controller-process.ts';

/** `kubectl port-forward <target> <ports...>` in <namespace>, logging to <dir>/<name>.log. */
export function spawnPortForward(
  name: string,
  namespace: string,
  target: string,
  ports: string[],
  dir: string,
) {
  return spawnLogged(
    name,
    [kubectlPath(), '--kubeconfig', kubeconfigPath(), '-n', namespace, 'port-forward', target, ...ports],
    process.env,
    dir,
  );
}

export interface Spawned {
  child: ChildProcess;
  log: string;
}

/** GETs a URL and returns its JSON body; throws on a non-2xx answer (for `eventually`). */
export async function httpOk(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${body}`);
  return body ? JSON.parse(body) : undefined;
}

export function spawnLogged(name: string, args: string[], env: NodeJS.ProcessEnv, dir: string): Spawned {
  const log = join(dir, `${name}.log`);
  const fd = openSync(log, 'a');
  const child = spawn(args[0] ?? '', args.slice(1), { cwd: repoRoot, env, stdio: ['ignore', fd, fd] });
  return { child, log };
}

export async function stopProcess(p: Spawned | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The last lines of a log file, for failure messages. */
export function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * A process that is started again whenever it exits until it is stopped: `kubectl port-forward`
 * ends for good when its pod goes or a stream breaks, and a long run should not depend on one.
 */
export function supervise(start: () => Spawned): { current(): Spawned; stop(): Promise<void> } {
  let stopping = false;
  let current = start();
  const watch = (p: Spawned) =>
    p.child.once('exit', () => {
      if (stopping) return;
      setTimeout(() => {
        if (stopping) return;
        current = start();
        watch(current);
      }, 500);
    });
  watch(current);
  return {
    current: () => current,
    async stop() {
      stopping = true;
      await stopProcess(current);
    },
  };
}
