// The chart's NetworkPolicies as the API server stores them. The local CNI (bridge) does not enforce
// policies, so each case applies what the chart renders, reads it back and asks a pure evaluator
// whether the controller's and the API's pods may reach an address.
import {
  CoreV1Api,
  loadAllYaml,
  NetworkingV1Api,
  type V1Deployment,
  type V1NetworkPolicy,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartDir, helm, run, setJson, uniqueName } from '../support/helm.ts';
import { kubeConfig, kubeconfigPath, kubectlPath, onKwokNodes } from '../support/kube.ts';
import { allowsEgress, type Destination } from '../support/network-policy.ts';

const namespace = uniqueName('colony-netpol');
const core = () => kubeConfig().makeApiClient(CoreV1Api);

beforeAll(async () => {
  await core().createNamespace({ body: { metadata: { name: namespace, annotations: onKwokNodes } } });
});
afterAll(async () => {
  await core()
    .deleteNamespace({ name: namespace })
    .catch(() => {});
});

type Component = 'controller' | 'api';
interface Installed {
  policies: V1NetworkPolicy[];
  may(component: Component, dest: Destination): boolean;
}

/** Renders a release with these values, applies its NetworkPolicies and reads them back. */
async function install(values: Record<string, unknown>): Promise<Installed> {
  const release = uniqueName('np');
  const token = { 'secrets.bootstrapToken': 'a-render-token-0123456789' };
  const docs = loadAllYaml(
    helm(['template', release, chartDir, '-n', namespace, ...setJson({ ...token, ...values })]),
  ) as { kind?: string }[];
  const policies = docs.filter((d) => d.kind === 'NetworkPolicy');
  const applied = run(
    kubectlPath(),
    ['--kubeconfig', kubeconfigPath(), 'apply', '--server-side', '-n', namespace, '-f', '-'],
    { input: policies.map((p) => JSON.stringify(p)).join('\n') },
  );
  if (!applied.ok) throw new Error(`kubectl apply failed: ${applied.stderr}`);
  const stored = await kubeConfig().makeApiClient(NetworkingV1Api).listNamespacedNetworkPolicy({ namespace });
  const labels = (component: Component) => {
    const d = docs.find(
      (x) =>
        x.kind === 'Deployment' && (x as V1Deployment).metadata?.name === `${release}-colony-${component}`,
    ) as V1Deployment;
    return d.spec?.template.metadata?.labels ?? {};
  };
  return {
    policies: stored.items,
    may: (component, dest) => allowsEgress(stored.items, { namespace, labels: labels(component) }, dest),
  };
}

const officeDb = 'postgres://colony:pw@10.96.7.7:5432/offices';
const anywhere = (port: number, ip = '198.51.100.20'): Destination => ({ ip, port });

describe('the NetworkPolicies the chart installs', () => {
  it('let the controller reach the office database (COLONY_OFFICE_DATABASE_URL)', async () => {
    const np = await install({ 'secrets.extra': { COLONY_OFFICE_DATABASE_URL: officeDb } });
    expect(np.policies.length).toBeGreaterThanOrEqual(2);
    expect(np.may('controller', { ip: '10.96.7.7', port: 5432 })).toBe(true);
    expect(np.may('api', { ip: '10.96.7.7', port: 5432 })).toBe(true);
    // Still isolated: DNS and the API server, but nothing else.
    expect(np.may('controller', { ip: '10.96.0.10', port: 53, protocol: 'UDP' })).toBe(true);
    expect(np.may('controller', anywhere(6443, '10.96.0.1'))).toBe(true);
    expect(np.may('controller', anywhere(80))).toBe(false);
    expect(np.may('controller', anywhere(6379))).toBe(false);
  });

  it('take the ports from the configured URLs, per component, and nothing by default', async () => {
    const np = await install({
      'secrets.databaseUrl': 'postgres://colony:pw@db.internal:6543/colony',
      'secrets.extra': { COLONY_OFFICE_DATABASE_URL: 'postgres://a:b@pg-1:5433,pg-2/offices' },
    });
    expect(np.may('api', anywhere(6543))).toBe(true);
    expect(np.may('controller', anywhere(6543))).toBe(false); // DATABASE_URL is the API's alone
    for (const port of [5433, 5432]) {
      expect(np.may('controller', anywhere(port)), String(port)).toBe(true);
      expect(np.may('api', anywhere(port)), String(port)).toBe(true);
    }
    const none = await install({});
    expect(none.may('controller', anywhere(5432))).toBe(false);
    expect(none.may('api', anywhere(5432))).toBe(false);
  });

  it('allow PostgreSQL only where networkPolicy.database.to says it runs', async () => {
    const np = await install({
      'secrets.extra': { COLONY_OFFICE_DATABASE_URL: officeDb },
      'networkPolicy.database.to': [
        { ipBlock: { cidr: '10.96.7.0/24' } },
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'databases' } } },
      ],
    });
    expect(np.may('controller', { ip: '10.96.7.7', port: 5432 })).toBe(true);
    expect(np.may('controller', anywhere(5432))).toBe(false);
    const pod = { namespace: 'databases', labels: { app: 'postgres' } };
    const inDatabases = { ...pod, namespaceLabels: { 'kubernetes.io/metadata.name': 'databases' } };
    expect(np.may('controller', { ...anywhere(5432, '10.244.3.9'), pod: inDatabases })).toBe(true);
    const elsewhere = { ...pod, namespace: 'web', namespaceLabels: { 'kubernetes.io/metadata.name': 'web' } };
    expect(np.may('controller', { ...anywhere(5432, '10.244.3.9'), pod: elsewhere })).toBe(false);
  });

  it("open PostgreSQL's default port for both when the Secret is the user's, or the ports given", async () => {
    const mine = await install({ 'secrets.existingSecret': 'colony-credentials' });
    expect(mine.may('controller', anywhere(5432))).toBe(true);
    expect(mine.may('api', anywhere(5432))).toBe(true);
    const ports = await install({
      'secrets.existingSecret': 'colony-credentials',
      'networkPolicy.database.ports': [15432],
    });
    expect(ports.may('controller', anywhere(15432))).toBe(true);
    expect(ports.may('controller', anywhere(5432))).toBe(false);
  });

  it('let the API reach Redis only when it is the rate-limit store', async () => {
    const redis = await install({
      'api.rateLimit.store': 'redis',
      'secrets.redisUrl': 'redis://redis.cache:6380/0',
      'networkPolicy.redis.to': [{ ipBlock: { cidr: '10.96.9.0/24' } }],
    });
    expect(redis.may('api', anywhere(6380, '10.96.9.4'))).toBe(true);
    expect(redis.may('api', anywhere(6380))).toBe(false);
    expect(redis.may('controller', anywhere(6380, '10.96.9.4'))).toBe(false);
    const memory = await install({ 'secrets.redisUrl': 'redis://redis.cache:6380/0' });
    expect(memory.may('api', anywhere(6380))).toBe(false);
  });
});
