// Test offices for the backups suites: namespaces labelled as offices on the real control plane,
// a server with the bootstrap token, and credentials narrowed to given scopes and offices.
import { CoreV1Api } from '@kubernetes/client-node';
import type { Principal } from '../../api/shared/identity.ts';
import { installCrds, kubeConfig, kubeconfigPath, withNamespace } from './kube.ts';
import { startTestServer, type TestServer } from './server.ts';

export const BOOTSTRAP = 'backups-bootstrap-token-0123456789';

export interface TestOffice {
  id: string;
  namespace: string;
  dispose(): Promise<void>;
}

/** A namespace labelled colony.ai/office=<id>, as the office-manager API finds offices. */
export async function createOffice(prefix = 'bk'): Promise<TestOffice> {
  const ns = await withNamespace(prefix);
  const id = `o${ns.name.replace(/^[a-z]+-/, '')}`;
  await kubeConfig()
    .makeApiClient(CoreV1Api)
    .patchNamespace({
      name: ns.name,
      body: [{ op: 'add', path: '/metadata/labels/colony.ai~1office', value: id }],
    });
  return { id, namespace: ns.name, dispose: ns.dispose };
}

/**
 * Tokens narrowed to scopes and offices. They go through the server's own verifier seam, as
 * API keys do; the identity part issues real ones.
 */
export function grantTokens(
  s: TestServer,
  grants: Record<string, { scopes: string[]; offices: string[] | '*' }>,
): void {
  s.app.colony.verifiers.push({
    name: 'backups-test-grants',
    async verify(token) {
      const g = grants[token];
      if (!g) return null;
      const p: Principal = {
        type: 'service_auth',
        subject: `operator:${token}`,
        name: token,
        scopes: g.scopes,
        offices: g.offices,
        credential: 'api_key',
      };
      return p;
    },
  });
}

export async function startBackupsServer(env: Record<string, string> = {}, opts = {}): Promise<TestServer> {
  await installCrds();
  return startTestServer(
    {
      KUBECONFIG: kubeconfigPath(),
      COLONY_BOOTSTRAP_TOKEN: BOOTSTRAP,
      COLONY_BACKUPS_SWEEP_SECONDS: '0',
      ...env,
    },
    opts,
  );
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Polls a snapshot (or restore) URL until it leaves pending/running. */
export async function settled(s: TestServer, url: string, token = BOOTSTRAP, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await s.app.inject({ url, headers: bearer(token) });
    const body = res.json();
    if (!['pending', 'running'].includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`${url} still ${body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
