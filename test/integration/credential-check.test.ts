// The credentialCheck layer on a real control plane: a provider that refuses the credentials blocks
// injection; one that cannot be asked (down, unreachable) does not, and the check is retried.
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { AppsV1Api, CustomObjectsApi, EventsV1Api, type V1EnvVar } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { GROUP, VERSION } from '../../cluster/crds/crds.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import { ColonyController } from '../../controller/colony-controller.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { agentStatefulSet } from '../support/agents.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';
import { secretField, testRegistry } from '../support/test-registry.ts';

type Condition = { type: string; status: string; reason: string; message: string };
type Check = {
  ok: boolean;
  result?: string;
  message: string;
  secretVersion: string;
  checkedAt: string;
  attempts?: number;
  retryAt?: string;
};

const RETRY = { baseMs: 400, maxMs: 1600 };
let ns: Awaited<ReturnType<typeof withNamespace>>;
let controller: ColonyController;
let registryDir: string;
let provider: Server;
let closedPort: number;
const office = 'cc';
const apps = () => kubeConfig().makeApiClient(AppsV1Api);
const custom = () => kubeConfig().makeApiClient(CustomObjectsApi);
const cluster = () => new OfficeCluster(kubeConfig());

/**
 * The scripted provider for `scripted-*` integrations: each test sets what it answers. A network
 * failure is thrown the way Node's fetch throws one (TypeError "fetch failed" with a coded cause).
 */
let answer: 'down' | number = 'down';
const calls = new Map<string, number>();
async function fetcher(url: string, init: RequestInit): Promise<Response> {
  const id = new URL(url).pathname.split('/')[1] ?? '';
  if (!id.startsWith('scripted-')) return fetch(url, init);
  calls.set(id, (calls.get(id) ?? 0) + 1);
  if (answer === 'down')
    throw new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
  return new Response(null, { status: answer });
}

function writeRegistry(providerPort: number): string {
  const r = testRegistry('credcheck');
  const add = (id: string, url: string) =>
    r.add(id, {
      requiredSecrets: [secretField('TOKEN')],
      agentEnvVars: ['TOKEN'],
      credentialCheck: { url, headers: { Authorization: 'Bearer {{TOKEN}}' } },
    });
  for (const id of ['scripted-a', 'scripted-b']) add(id, `http://127.0.0.1:${providerPort}/${id}`);
  // A real request to a loopback port nobody listens on: connection refused.
  add('unreachable', `http://127.0.0.1:${closedPort}/me`);
  // A real provider that refuses every credential.
  add('refusing', `http://127.0.0.1:${providerPort}/refuse`);
  return r.dir;
}

async function configure(id: string, token: string) {
  const manifest = loadRegistry(registryDir).get(id);
  if (!manifest) throw new Error(id);
  const secretName = `${id}-${office}`;
  await cluster().saveSecret(
    renderIntegrationSecret({
      manifest,
      officeId: office,
      namespace: ns.name,
      secretName,
      data: { TOKEN: token },
    }),
  );
  await cluster().saveIntegration(ns.name, id, { integrationId: id, officeId: office, secretName });
}

const enable = (agentName: string, id: string) =>
  cluster().saveBinding(
    ns.name,
    `${agentName}-${id}`,
    { agentName, integrationId: id, secretName: `${id}-${office}`, enabled: true },
    office,
  );

async function createAgent(name: string) {
  await apps().createNamespacedStatefulSet({ namespace: ns.name, body: agentStatefulSet(name) });
}

const env = async (agent: string): Promise<V1EnvVar[]> =>
  (await apps().readNamespacedStatefulSet({ name: agent, namespace: ns.name })).spec?.template.spec
    ?.containers[0]?.env ?? [];

const read = async (plural: string, name: string) =>
  (await custom().getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns.name,
    plural,
    name,
  })) as { status?: { conditions?: Condition[]; credentialCheck?: Check } };

const cond = (o: { status?: { conditions?: Condition[] } }, type: string) =>
  o.status?.conditions?.find((c) => c.type === type);

/** Waits until the binding's Available or Degraded condition has this reason. */
async function bindingReason(binding: string, reason: string) {
  try {
    return await eventually(async () => {
      const b = await read('agentbindings', binding);
      const [available, degraded] = [cond(b, 'Available'), cond(b, 'Degraded')];
      return available?.reason === reason || degraded?.reason === reason
        ? { available, degraded }
        : undefined;
    }, 20_000);
  } catch (err) {
    const b = await read('agentbindings', binding);
    throw new Error(`${binding} never reached ${reason}: ${JSON.stringify(b.status)}`, { cause: err });
  }
}

/** Waits until the Integration's credential check satisfies `ok`. */
async function checkOf(name: string, ok: (c: Check, verified: Condition | undefined) => boolean) {
  try {
    return await eventually(async () => {
      const i = await read('integrations', name);
      const c = i.status?.credentialCheck;
      return c && ok(c, cond(i, 'CredentialVerified'))
        ? { check: c, verified: cond(i, 'CredentialVerified') }
        : undefined;
    }, 20_000);
  } catch (err) {
    const i = await read('integrations', name);
    throw new Error(`${name}: ${JSON.stringify(i.status)}`, { cause: err });
  }
}

beforeAll(async () => {
  // A port that was free a moment ago and that nobody listens on now.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  provider = createServer((_req, res) => {
    res.statusCode = 401;
    res.end();
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  registryDir = writeRegistry((provider.address() as { port: number }).port);
  await installCrds();
  ns = await withNamespace('office-credcheck');
  controller = new ColonyController({
    kc: kubeConfig(),
    registry: loadRegistry(registryDir),
    resyncMs: 0,
    namespace: ns.name,
    credentialChecks: true,
    credentialRetry: RETRY,
    fetcher,
  });
  await controller.start();
});
afterAll(async () => {
  await controller?.stop();
  await ns?.dispose();
  provider?.close();
  rmSync(registryDir, { recursive: true, force: true });
});

describe('credential checks that cannot reach the provider', () => {
  it('inject anyway, say the credentials are unverified, retry with backoff and clear once verified', async () => {
    answer = 'down';
    await createAgent('alpha');
    await configure('scripted-a', 'token-a');
    await enable('alpha', 'scripted-a');

    const unverified = await bindingReason('alpha-scripted-a', 'CredentialUnverified');
    expect(unverified.available?.status).toBe('True');
    expect(unverified.degraded?.status).toBe('True');
    expect(unverified.degraded?.message).toContain('connection refused');
    expect(unverified.degraded?.message).not.toContain('token-a');
    expect((await env('alpha')).map((e) => e.name)).toContain('TOKEN');

    // Retried without any change to the objects, each wait twice the last, up to the cap.
    const retried = await checkOf('scripted-a', (c) => (c.attempts ?? 0) >= 4);
    expect(retried.check.result).toBe('Unverified');
    expect(retried.check.ok).toBe(false);
    expect(retried.verified?.status).toBe('False');
    expect(retried.verified?.reason).toBe('CredentialUnverified');
    expect(calls.get('scripted-a')).toBeGreaterThanOrEqual(4);
    const wait = (c: Check) => Date.parse(c.retryAt ?? '') - Date.parse(c.checkedAt);
    expect(wait(retried.check)).toBe(
      Math.min(RETRY.maxMs, RETRY.baseMs * 2 ** ((retried.check.attempts ?? 1) - 1)),
    );

    const integration = await read('integrations', 'scripted-a');
    expect(cond(integration, 'Available')?.status).toBe('True');
    const events = await kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns.name });
    const warning = events.items.find(
      (e) => e.regarding?.kind === 'Integration' && e.reason === 'CredentialUnverified',
    );
    expect(warning?.type).toBe('Warning');
    expect(warning?.note).toContain('connection refused');

    answer = 200;
    const verified = await checkOf('scripted-a', (c) => c.result === 'Verified');
    expect(verified.verified?.status).toBe('True');
    expect(verified.check.attempts ?? 0).toBe(0);
    expect(verified.check.retryAt).toBeUndefined();
    const injected = await bindingReason('alpha-scripted-a', 'Injected');
    expect(injected.degraded?.status).toBe('False');
  });

  it('stop injecting when a retry gets a definite refusal, and start over when the Secret changes', async () => {
    answer = 503;
    await createAgent('beta');
    await configure('scripted-b', 'token-b');
    await enable('beta', 'scripted-b');
    const unverified = await bindingReason('beta-scripted-b', 'CredentialUnverified');
    expect(unverified.degraded?.message).toContain('HTTP 503');
    expect((await env('beta')).map((e) => e.name)).toContain('TOKEN');
    await checkOf('scripted-b', (c) => (c.attempts ?? 0) >= 3);

    // A new Secret version is checked at once, its backoff starting over.
    const before = calls.get('scripted-b') ?? 0;
    await configure('scripted-b', 'token-b2');
    const restarted = await checkOf('scripted-b', (c) => c.result === 'Unverified' && c.attempts === 1);
    expect(calls.get('scripted-b')).toBeGreaterThan(before);
    expect(restarted.check.message).toContain('HTTP 503');

    answer = 403;
    const refused = await bindingReason('beta-scripted-b', 'CredentialCheckFailed');
    expect(refused.available?.status).toBe('False');
    expect(refused.degraded?.message).toContain('HTTP 403');
    await eventually(async () => !(await env('beta')).some((e) => e.name === 'TOKEN'));
    const check = await checkOf('scripted-b', (c) => c.result === 'Refused');
    expect(check.verified?.reason).toBe('CredentialCheckFailed');
    expect(check.check.retryAt).toBeUndefined();
  });

  it('inject when the provider’s port refuses the connection (a real request)', async () => {
    await createAgent('gamma');
    await configure('unreachable', 'token-c');
    await enable('gamma', 'unreachable');
    const unverified = await bindingReason('gamma-unreachable', 'CredentialUnverified');
    expect(unverified.degraded?.message).toContain(`127.0.0.1:${closedPort}`);
    expect(unverified.degraded?.message).toContain('ECONNREFUSED');
    expect((await env('gamma')).map((e) => e.name)).toContain('TOKEN');
  });

  it('still block credentials the provider refuses (a real 401)', async () => {
    await createAgent('delta');
    await configure('refusing', 'token-d');
    await enable('delta', 'refusing');
    const refused = await bindingReason('delta-refusing', 'CredentialCheckFailed');
    expect(refused.available?.status).toBe('False');
    expect(refused.degraded?.message).toContain('HTTP 401');
    expect((await env('delta')).map((e) => e.name)).not.toContain('TOKEN');
    const check = await checkOf('refusing', (c) => c.result === 'Refused');
    expect(check.check.attempts ?? 0).toBe(0);
  });
});
