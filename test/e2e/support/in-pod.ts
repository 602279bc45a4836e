// Looks inside running containers with `kubectl exec`: the Colony image has node and no shell, so
// every probe is a small node script. What a process sees (its environment, the network from its
// pod) is the proof that matters, not what its pod spec says.
import { execFile } from 'node:child_process';
import { kubeconfigPath, kubectlPath } from '../../support/kube.ts';

/** node in the Colony image (and every image built FROM it). */
export const NODE = '/nodejs/bin/node';

export interface PodRef {
  namespace: string;
  pod: string;
  container: string;
}

/** Runs a command in a container; rejects with its output when it fails or outlives the timeout. */
export function execInPod(ref: PodRef, argv: string[], timeoutMs = 30_000): Promise<string> {
  const args = ['--kubeconfig', kubeconfigPath(), '-n', ref.namespace, 'exec', ref.pod, '-c', ref.container];
  return new Promise((resolve, reject) => {
    execFile(
      kubectlPath(),
      [...args, '--', ...argv],
      { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`exec in ${ref.namespace}/${ref.pod}: ${err.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

// Prints PID 1's environment as the kernel holds it: the running process's, not a new one's.
const READ_ENVIRON = "process.stdout.write(process.getBuiltinModule('fs').readFileSync('/proc/1/environ'))";

/** The environment of the container's main process (PID 1), read from /proc/1/environ. */
export async function processEnv(ref: PodRef): Promise<Record<string, string>> {
  const raw = await execInPod(ref, [NODE, '-e', READ_ENVIRON]);
  return Object.fromEntries(
    raw
      .split('\0')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

// GETs argv[1] with node's fetch and prints {status, contentType, body}, or {error} when the
// connection fails (refused, unresolvable, timed out), so a caller can tell the two apart.
const FETCH = `
const url = process.argv[1];
fetch(url, { signal: AbortSignal.timeout(5000) }).then(
  async (r) => console.log(JSON.stringify({ status: r.status, contentType: r.headers.get('content-type') ?? '', body: await r.text() })),
  (e) => console.log(JSON.stringify({ error: String(e.cause?.code ?? e.cause?.message ?? e.message) })),
);`;

export interface PodFetch {
  status?: number;
  contentType?: string;
  body?: string;
  /** Set when no HTTP answer came at all. */
  error?: string;
}

/** A GET made from inside the pod, through the cluster's DNS and Services. */
export async function fetchFromPod(ref: PodRef, url: string): Promise<PodFetch> {
  return JSON.parse(await execInPod(ref, [NODE, '-e', FETCH, url])) as PodFetch;
}
