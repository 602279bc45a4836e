// Test offices for the backups suites: namespaces labelled as offices on the real control plane,
// a server with the bootstrap token, and credentials narrowed to given scopes and offices.

import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
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
 * Real API keys (identity's `col_` keys) narrowed to scopes and offices: one account per grant,
 * made a member of each office, then a key bound to them. Answers the tokens by grant name.
 */
export async function issueKeys(
  s: TestServer,
  grants: Record<string, { scopes: string[]; offices: string[] | null }>,
): Promise<Record<string, string>> {
  const { accounts, apiKeys, officeMembers } = s.app.colony.identity;
  const tokens: Record<string, string> = {};
  for (const [name, g] of Object.entries(grants)) {
    const signedUp = await accounts.signUp({
      email: `${name}-${randomBytes(3).toString('hex')}@backups.test`,
      name,
      password: `pw-${randomBytes(12).toString('hex')}`,
    });
    if (!signedUp.ok) throw new Error(`could not sign up ${name}`);
    for (const office of g.offices ?? [])
      await officeMembers.upsert(office, signedUp.account.id, 'owner', Date.now());
    const made = await apiKeys.create(signedUp.account.id, {
      name,
      scopes: g.scopes,
      offices: g.offices,
      expiresInDays: null,
    });
    if (!made.ok) throw new Error(made.detail);
    tokens[name] = made.token;
  }
  return tokens;
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
