// The real control plane the cluster tests use: `npm run cluster:up` (or any KUBECONFIG) provides it.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

export function kubeconfigPath(): string {
  const path = process.env.KUBECONFIG;
  if (!path)
    throw new Error(
      'KUBECONFIG is not set: run `make test`, or `npm run cluster:up` and export its last line',
    );
  return path;
}

export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath());
  return kc;
}

/**
 * Sends a namespace's pods to the local cluster's kwok nodes (its PodNodeSelector admission puts every
 * other pod on the real node). The integration tier's pods run fake images that only kwok can "run".
 * Clusters without that admission plugin, such as kind, ignore the annotation.
 */
export const onKwokNodes: Record<string, string> = {
  'scheduler.alpha.kubernetes.io/node-selector': 'type=kwok',
};

/** A fresh namespace per test file, deleted afterwards, so tests never see each other's objects. */
export async function withNamespace(prefix: string): Promise<{ name: string; dispose(): Promise<void> }> {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await core.createNamespace({
    body: { metadata: { name, labels: { 'colony.ai/test': 'true' }, annotations: onKwokNodes } },
  });
  return {
    name,
    dispose: async () => {
      await core.deleteNamespace({ name }).catch(() => {});
    },
  };
}

/** kubectl from KUBECTL, the local control plane's build, or PATH. */
export function kubectlPath(): string {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  const cache =
    process.env.COLONY_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'colony');
  const binDir = join(cache, 'cluster', 'bin-dir');
  if (existsSync(binDir)) {
    const candidate = join(readFileSync(binDir, 'utf8').trim(), 'kubectl');
    if (existsSync(candidate)) return candidate;
  }
  return 'kubectl';
}

export function kubectl(args: string[], input?: string): string {
  return execFileSync(kubectlPath(), ['--kubeconfig', kubeconfigPath(), ...args], {
    encoding: 'utf8',
    input,
  });
}

/**
 * Server-side applies the CRDs we ship and waits until the API server serves them. kubectl sends the
 * files as they are; the client library's typed serializer would drop the `x-kubernetes-*` keys
 * (CEL rules, list types), so the tests would run against a different schema than users install.
 */
export async function installCrds(): Promise<void> {
  const dir = new URL('../../crds/', import.meta.url).pathname;
  kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=colony-tests', '-f', dir]);
  kubectl([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/integrations.colony.ai',
    'crd/agentbindings.colony.ai',
  ]);
}
