// The Helm chart's checks, against the real control plane: helm lint, ct lint (offline), actionlint
// on the workflows, manifests/ freshness, schema validation, a server-side dry-run of everything the
// chart renders, the RBAC it grants, and install of the previous chart version + upgrade + helm test.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  loadAllYaml,
  type V1Deployment,
  type V1EnvVar,
  type V1Secret,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartDir, helm, helmTools, repoRoot, run, setJson, uniqueName } from '../support/helm.ts';
import { kubeConfig, kubeconfigPath, kubectlPath, onKwokNodes } from '../support/kube.ts';

const previousDir = `${repoRoot}charts/previous`;
/** `helm template` cannot keep a generated token (no cluster), so renders name one. */
const renderToken = { 'secrets.bootstrapToken': 'a-render-token-0123456789' };
const ciValues = readdirSync(`${chartDir}/ci`).map((f) => `${chartDir}/ci/${f}`);

let unpacked: string | undefined;
/** The previous release's package, unpacked once into a temporary directory. */
function previousUnpacked(): string {
  if (unpacked) return unpacked;
  const dir = mkdtempSync(join(tmpdir(), 'colony-previous-'));
  const tgz = readdirSync(previousDir).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`no packaged chart in ${previousDir}`);
  ok(run('tar', ['-xzf', `${previousDir}/${tgz}`, '-C', dir]), 'tar');
  unpacked = dir;
  return dir;
}

/** Files (but Chart.yaml, which helm package rewrites) that differ between the chart and the release. */
function chartDiffersFromPrevious(): string[] {
  const released = `${previousUnpacked()}/colony`;
  const files = (root: string): string[] =>
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name).slice(root.length + 1))
      .filter((f) => f !== 'Chart.yaml' && !f.startsWith('ci/') && f !== '.helmignore');
  const all = new Set([...files(chartDir), ...files(released)]);
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined);
  return [...all].filter((f) => read(`${chartDir}/${f}`) !== read(`${released}/${f}`)).sort();
}

function ok(r: { ok: boolean; stdout: string; stderr: string }, what: string): string {
  if (!r.ok) throw new Error(`${what} failed:\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

beforeAll(() => {
  helmTools(); // builds the pinned tools on a fresh machine; `make test` has done it already
}, 1_800_000);

describe('the chart passes its linters', () => {
  it('helm lint --strict, with the defaults and with every ci/ values file', () => {
    ok(run(helmTools().helm, ['lint', '--strict', chartDir]), 'helm lint');
    for (const values of ciValues)
      ok(run(helmTools().helm, ['lint', '--strict', chartDir, '-f', values]), values);
  });

  it('ct lint, offline (charts named explicitly, no version check against a remote)', () => {
    const t = helmTools();
    const out = ok(
      run(t.ct, ['lint', '--config', 'charts/ct.yaml', '--chart-yaml-schema', t.ctChartSchema]),
      'ct lint',
    );
    expect(out).toContain('All charts linted successfully');
  });

  it('actionlint finds nothing in the GitHub workflows', () => {
    ok(run(helmTools().actionlint, ['-color=false']), 'actionlint');
  });

  it('bumps the chart version whenever the chart differs from the previous release (charts/previous)', () => {
    // ct's version-increment check needs a git remote; this one compares with the packaged release.
    const changed = chartDiffersFromPrevious();
    const version = (file: string) => /^version:\s*(\S+)/m.exec(readFileSync(file, 'utf8'))?.[1];
    const current = version(`${chartDir}/Chart.yaml`);
    const released = version(`${previousUnpacked()}/colony/Chart.yaml`);
    if (changed.length > 0)
      expect(current, `changed since ${released}: ${changed.join(', ')}`).not.toBe(released);
    else expect(current).toBe(released);
  });

  it('manifests/ is what the chart renders (scripts/generate-manifests.sh --check)', () => {
    ok(run('bash', ['scripts/generate-manifests.sh', '--check']), 'generate-manifests --check');
  });
});

describe('GitOps renders (helm template, Argo CD: no cluster to look the old Secret up in)', () => {
  const template = (values: Record<string, unknown>) =>
    run(helmTools().helm, ['template', 'x', chartDir, '-n', 'colony-system', ...setJson(values)]);

  it('refuses to generate a bootstrap token, naming the values to set instead', () => {
    const r = template({});
    expect(r.ok).toBe(false);
    expect(r.stderr).toContain('secrets.existingSecret');
    expect(r.stderr).toContain('secrets.bootstrapToken');
    expect(r.stderr).toContain('cannot see the cluster');
  });

  it.each([
    ['secrets.existingSecret', { 'secrets.existingSecret': 'colony-credentials' }],
    ['secrets.bootstrapToken', { 'secrets.bootstrapToken': 'a-gitops-token-0123456789' }],
  ])('renders byte-identical manifests twice with %s', (_what, values) => {
    const first = template(values);
    expect(first.ok, first.stderr).toBe(true);
    expect(template(values).stdout).toBe(first.stdout);
    expect(first.stdout).toContain('kind: Deployment');
  });
});

describe('helm install with zero configuration, on the cluster', () => {
  const release = uniqueName('colony-token');
  const namespace = release;
  const core = () => kubeConfig().makeApiClient(CoreV1Api);
  const apps = () => kubeConfig().makeApiClient(AppsV1Api);
  beforeAll(async () => {
    await core().createNamespace({ body: { metadata: { name: namespace, annotations: onKwokNodes } } });
  });
  afterAll(async () => {
    run(helmTools().helm, ['uninstall', release, '-n', namespace, '--wait', '--timeout', '2m']);
    await core()
      .deleteNamespace({ name: namespace })
      .catch(() => {});
  });
  const token = async () => {
    const secret = await core().readNamespacedSecret({ name: release, namespace });
    return Buffer.from(secret.data?.COLONY_BOOTSTRAP_TOKEN ?? '', 'base64').toString();
  };
  const checksums = async () =>
    Promise.all(
      ['controller', 'api'].map(async (c) => {
        const d = await apps().readNamespacedDeployment({ name: `${release}-${c}`, namespace });
        return d.spec?.template.metadata?.annotations?.['checksum/secret'];
      }),
    );

  it('generates a bootstrap token once and keeps it, and the pods, across upgrades', async () => {
    helm(['install', release, chartDir, '-n', namespace]);
    const generated = await token();
    expect(generated).toMatch(/^[A-Za-z0-9]{40}$/);
    const before = await checksums();
    helm(['upgrade', release, chartDir, '-n', namespace]);
    expect(await token()).toBe(generated);
    // The same checksum: an upgrade that changes nothing does not roll either Deployment.
    expect(await checksums()).toEqual(before);
  });
});

describe('values the chart refuses (values.schema.json and template guards)', () => {
  const template = (values: Record<string, unknown>) =>
    run(helmTools().helm, ['template', 'x', chartDir, ...setJson({ ...renderToken, ...values })]);

  it.each([
    [{ unknownKey: true }, 'unknownKey'],
    [{ 'controller.replicas': -1 }, 'replicas'],
    [{ 'api.environment': 'staging' }, 'environment'],
    [{ 'secrets.bootstrapToken': 'short' }, 'bootstrapToken'],
    [{ 'secrets.databaseUrl': 'mysql://x' }, 'databaseUrl'],
    [{ 'api.rateLimit.store': 'etcd' }, 'store'],
    [{ 'api.rateLimit.store': 'redis' }, 'secrets.redisUrl'],
    [{ 'api.rateLimit.store': 'postgres' }, 'secrets.databaseUrl'],
    [{ 'api.persistence.enabled': true, 'api.replicas': 2 }, 'api.replicas=1'],
    [{ 'secrets.extra': { 'stripe-key': 'sk_x' } }, "'stripe-key' does not match"],
    [{ 'secrets.extra': { STRIPE_SECRET_KEY: '' } }, '/secrets/extra/STRIPE_SECRET_KEY'],
    [{ 'secrets.optionalEnv.api': ['not a variable'] }, '/secrets/optionalEnv/api/0'],
    [{ 'api.memory.answerModel.url': 'https://models.example/v1' }, 'api.memory.answerModel.model'],
    [{ 'api.memory.embeddings.url': 'ftp://x' }, '/api/memory/embeddings/url'],
    [{ 'controller.imageOverrides': { 'tailscale/tailscale:stable': 1 } }, '/controller/imageOverrides'],
    [{ 'controller.imageOverrides': { 'tailscale/tailscale:stable': '' } }, '/controller/imageOverrides'],
    [{ 'image.digest': 'sha256:abc' }, '/image/digest'],
    [{ 'image.digest': 'latest' }, '/image/digest'],
    [{ 'rbac.scope': 'namespace' }, '/rbac/scope'],
    [{ 'rbac.scope': 'offices', watchNamespace: 'office-a' }, 'leave watchNamespace unset'],
  ])('rejects %j naming the value', (values, name) => {
    const r = template(values);
    expect(r.ok).toBe(false);
    expect(r.stderr).toContain(name);
  });

  it('accepts the defaults and every ci/ values file', () => {
    expect(template({}).ok).toBe(true);
    for (const values of ciValues)
      ok(run(helmTools().helm, ['template', 'x', chartDir, '-f', values]), values);
  });
});

describe('rbac.scope=offices as rendered', () => {
  type Rule = { resources?: string[]; verbs?: string[]; resourceNames?: string[] };
  type Doc = {
    kind?: string;
    metadata?: { name?: string };
    rules?: Rule[];
    roleRef?: { name?: string };
  };
  const docs = () =>
    loadAllYaml(
      helm(['template', 'x', chartDir, ...setJson({ rbac: { scope: 'offices' }, ...renderToken })]),
    ) as Doc[];

  it('binds nothing cluster-wide that reaches Secrets, workloads or Colony resources', () => {
    const all = docs();
    const roles = new Map(all.filter((d) => d.kind === 'ClusterRole').map((d) => [d.metadata?.name, d]));
    const bound = all
      .filter((d) => d.kind === 'ClusterRoleBinding')
      .flatMap((b) => roles.get(b.roleRef?.name)?.rules ?? []);
    expect(bound.length).toBeGreaterThan(0);
    const reached = bound.flatMap((r) => r.resources ?? []);
    for (const r of ['secrets', 'deployments', 'statefulsets', 'integrations', 'agentbindings', 'pods'])
      expect(reached).not.toContain(r);
    // The only way in: RoleBindings to the two office roles, which the API may bind and nothing else.
    const bind = bound.find((r) => r.verbs?.includes('bind'));
    expect(bind?.resourceNames).toEqual(['x-colony-office-api', 'x-colony-office-controller']);
    expect(bound.some((r) => r.verbs?.includes('escalate') || r.verbs?.includes('*'))).toBe(false);
  });

  it('ships the office roles unbound, and the admission policy that keeps their bindings in offices', () => {
    const all = docs();
    const names = all.map((d) => `${d.kind}/${d.metadata?.name}`);
    expect(names).toContain('ClusterRole/x-colony-office-api');
    expect(names).toContain('ClusterRole/x-colony-office-controller');
    expect(names).toContain('ValidatingAdmissionPolicy/x-colony-office-grants');
    expect(all.filter((d) => d.kind?.endsWith('Binding') && d.roleRef?.name?.includes('-office-'))).toEqual(
      [],
    );
  });
});

describe('image, pod annotations and disruption budgets as rendered', () => {
  type Doc = { kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown> };
  const render = (values: Record<string, unknown>) =>
    loadAllYaml(helm(['template', 'x', chartDir, ...setJson({ ...renderToken, ...values })])) as Doc[];
  const podTemplates = (docs: Doc[]) =>
    docs
      .filter((d) => d.kind === 'Deployment' || d.kind === 'Job')
      .map((d) => (d as V1Deployment).spec?.template);
  const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;

  it('runs every Colony container by digest when image.digest is set, by tag otherwise', () => {
    const images = (docs: Doc[]) => podTemplates(docs).map((t) => t?.spec?.containers[0]?.image);
    expect(images(render({ 'image.repository': 'reg/colony', 'image.tag': '1.2.3' }))).toEqual([
      'reg/colony:1.2.3',
      'reg/colony:1.2.3',
      'reg/colony:1.2.3',
    ]);
    const pinned = images(
      render({ 'image.repository': 'reg/colony', 'image.tag': '1.2.3', 'image.digest': digest }),
    );
    expect(pinned).toEqual([`reg/colony@${digest}`, `reg/colony@${digest}`, `reg/colony@${digest}`]);
  });

  it('never renders an empty annotations key on a pod template', () => {
    for (const values of [{ 'secrets.existingSecret': 'mine' }, {}, { 'api.podAnnotations': { a: 'b' } }]) {
      for (const t of podTemplates(render(values))) {
        const meta = (t?.metadata ?? {}) as Record<string, unknown>;
        if ('annotations' in meta) expect(meta.annotations, JSON.stringify(values)).toBeTypeOf('object');
        if ('annotations' in meta) expect(meta.annotations).not.toBeNull();
      }
    }
    const api = podTemplates(render({ 'api.podAnnotations': { a: 'b' } }))[0]?.metadata?.annotations;
    expect(api?.a).toBe('b');
    expect(api?.['checksum/secret']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lets a drain evict pods that are not Ready (unhealthyPodEvictionPolicy AlwaysAllow)', () => {
    const pdbs = render({}).filter((d) => d.kind === 'PodDisruptionBudget');
    expect(pdbs.length).toBe(2);
    for (const pdb of pdbs) expect(pdb.spec?.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
  });
});

/** `helm template` of the chart with these values (and a token), as objects. */
function renderChart(values: Record<string, unknown>): { kind?: string }[] {
  return loadAllYaml(helm(['template', 'x', chartDir, ...setJson({ ...renderToken, ...values })])) as {
    kind?: string;
  }[];
}

/** The first container's env of the rendered `x-colony-<component>` Deployment. */
function containerEnv(docs: { kind?: string }[], component: string): V1EnvVar[] {
  const deployment = docs.find(
    (d) => d.kind === 'Deployment' && (d as V1Deployment).metadata?.name === `x-colony-${component}`,
  ) as V1Deployment | undefined;
  return deployment?.spec?.template.spec?.containers[0]?.env ?? [];
}

describe('the client address behind the chart Ingress (api.trustProxy)', () => {
  const trustProxy = (values: Record<string, unknown>) =>
    containerEnv(renderChart(values), 'api').find((e) => e.name === 'COLONY_TRUST_PROXY')?.value;

  it('trusts one hop, the ingress controller, when the Ingress is on and api.trustProxy is empty', () => {
    expect(trustProxy({ 'ingress.enabled': true })).toBe('1');
  });

  it('sets nothing without an Ingress, so clients that connect directly cannot name their address', () => {
    expect(trustProxy({})).toBeUndefined();
    expect(trustProxy({ 'ingress.enabled': false })).toBeUndefined();
  });

  it('lets an explicit api.trustProxy win, with or without the Ingress', () => {
    expect(trustProxy({ 'ingress.enabled': true, 'api.trustProxy': '10.0.0.0/8' })).toBe('10.0.0.0/8');
    expect(trustProxy({ 'ingress.enabled': true, 'api.trustProxy': '2' })).toBe('2');
    expect(trustProxy({ 'ingress.enabled': true, 'api.trustProxy': 'false' })).toBe('false');
    expect(trustProxy({ 'api.trustProxy': '1' })).toBe('1');
  });

  it('never sets it on the controller', () => {
    const env = containerEnv(renderChart({ 'ingress.enabled': true }), 'controller');
    expect(env.some((e) => e.name === 'COLONY_TRUST_PROXY')).toBe(false);
  });
});

describe('optional secret settings (secrets.optionalEnv, secrets.extra)', () => {
  const render = renderChart;
  const refOf = (env: V1EnvVar[], name: string) => env.find((e) => e.name === name)?.valueFrom?.secretKeyRef;

  it('puts extra keys in the chart Secret and gives each component only its optional references', () => {
    const docs = render({
      'secrets.bootstrapToken': 'a-bootstrap-token-of-enough-length',
      'secrets.extra': { STRIPE_SECRET_KEY: 'sk_test_chart', COLONY_OFFICE_DATABASE_URL: 'postgres://o' },
    });
    const secret = docs.find((d) => d.kind === 'Secret' && (d as V1Secret).metadata?.name === 'x-colony') as
      | V1Secret
      | undefined;
    expect(Buffer.from(secret?.data?.STRIPE_SECRET_KEY ?? '', 'base64').toString()).toBe('sk_test_chart');
    const api = containerEnv(docs, 'api');
    expect(refOf(api, 'STRIPE_SECRET_KEY')).toEqual({
      name: 'x-colony',
      key: 'STRIPE_SECRET_KEY',
      optional: true,
    });
    expect(refOf(api, 'COLONY_OAUTH_CLIENTS')?.optional).toBe(true);
    const controller = containerEnv(docs, 'controller');
    expect(refOf(controller, 'COLONY_OFFICE_DATABASE_URL')?.key).toBe('COLONY_OFFICE_DATABASE_URL');
    expect(refOf(controller, 'STRIPE_SECRET_KEY')).toBeUndefined();
    // The secret's value never lands in a pod spec, only the reference to it.
    expect(JSON.stringify(api)).not.toContain('sk_test_chart');
  });

  it('sets the memory models from api.memory, and nothing of them by default', () => {
    const names = (docs: { kind?: string }[]) => containerEnv(docs, 'api').map((e) => e.name);
    expect(names(render({})).filter((n) => /EMBEDDINGS_URL|ANSWER_MODEL_URL/.test(n))).toEqual([]);
    const env = containerEnv(
      render({
        'api.memory.embeddings.url': 'https://embed.example/v1',
        'api.memory.answerModel.url': 'https://chat.example/v1',
        'api.memory.answerModel.model': 'small-chat',
      }),
      'api',
    );
    const value = (name: string) => env.find((e) => e.name === name)?.value;
    expect(value('COLONY_EMBEDDINGS_URL')).toBe('https://embed.example/v1');
    expect(value('COLONY_EMBEDDINGS_MODEL')).toBe('text-embedding-3-small');
    expect(value('COLONY_ANSWER_MODEL_URL')).toBe('https://chat.example/v1');
    expect(value('COLONY_ANSWER_MODEL')).toBe('small-chat');
    expect(value('COLONY_ANSWER_MODEL_TIMEOUT_MS')).toBe('20000');
  });

  it('passes controller.imageOverrides to the controller only, as JSON, and nothing by default', () => {
    const overrides = { 'tailscale/tailscale:stable': 'registry.internal/mirror/tailscale:v1.80.3' };
    const named = (env: V1EnvVar[]) => env.find((e) => e.name === 'COLONY_IMAGE_OVERRIDES');
    expect(named(containerEnv(render({}), 'controller'))).toBeUndefined();
    const docs = render({ 'controller.imageOverrides': overrides });
    expect(JSON.parse(named(containerEnv(docs, 'controller'))?.value ?? '')).toEqual(overrides);
    expect(named(containerEnv(docs, 'api'))).toBeUndefined();
  });

  it('caps the controller heap at a third of its memory limit (Mi or Gi) and its young generation, and not the API', () => {
    const cap = (values: Record<string, unknown>, component = 'controller') =>
      containerEnv(render(values), component).find((e) => e.name === 'NODE_OPTIONS')?.value;
    expect(cap({})).toBe('--max-old-space-size=256 --max-semi-space-size=16');
    expect(cap({ 'controller.resources.limits.memory': '1536Mi' })).toBe(
      '--max-old-space-size=512 --max-semi-space-size=16',
    );
    expect(cap({ 'controller.resources.limits.memory': '3Gi' })).toBe(
      '--max-old-space-size=1024 --max-semi-space-size=16',
    );
    // Other notations leave Node to size its own heap rather than guess at the unit.
    expect(cap({ 'controller.resources.limits.memory': '800M' })).toBeUndefined();
    expect(cap({}, 'api')).toBeUndefined();
  });

  it('reads the same keys from a Secret the user manages, and the lists can be narrowed', () => {
    const docs = render({
      'secrets.existingSecret': 'mine',
      'secrets.optionalEnv.api': ['STRIPE_SECRET_KEY'],
    });
    expect(docs.some((d) => d.kind === 'Secret')).toBe(false);
    const api = containerEnv(docs, 'api');
    expect(refOf(api, 'STRIPE_SECRET_KEY')?.name).toBe('mine');
    expect(refOf(api, 'COLONY_OAUTH_CLIENTS')).toBeUndefined();
  });
});

describe('the rendered chart on the real API server', () => {
  const core = () => kubeConfig().makeApiClient(CoreV1Api);
  const namespaces: string[] = [];
  afterAll(async () => {
    for (const name of namespaces)
      await core()
        .deleteNamespace({ name })
        .catch(() => {});
  });

  it.each([
    ['cluster-wide', {}],
    ['namespaced', { watchNamespace: 'WATCHED' }],
  ])('is accepted by a server-side dry-run (%s)', async (_mode, values) => {
    const ns = uniqueName('colony-chart-dry');
    namespaces.push(ns);
    await core().createNamespace({ body: { metadata: { name: ns, annotations: onKwokNodes } } });
    const resolved = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, v === 'WATCHED' ? ns : v]),
    );
    const rendered = helm([
      'template',
      'dry',
      chartDir,
      '-n',
      ns,
      '--include-crds',
      ...setJson({ ...renderToken, ...resolved }),
    ]);
    // What an admin would type: `helm template | kubectl apply --dry-run=server -f -`.
    const kubectl = ['--kubeconfig', kubeconfigPath(), 'apply', '--dry-run=server', '-f', '-'];
    const out = ok(run(kubectlPath(), kubectl, { input: rendered }), 'kubectl apply --dry-run=server');
    expect(out).toMatch(/deployment.apps\/dry-colony-controller created \(server dry run\)/);
    expect(out).toMatch(/job.batch\/dry-colony-test created \(server dry run\)/);
  });
});

describe('install of the previous chart version, upgrade to this one, helm test', () => {
  const release = uniqueName('colony-chart');
  const namespace = release;
  const office = `${release}-office`;
  const other = `${release}-other`;
  const admin = kubeConfig();
  const core = admin.makeApiClient(CoreV1Api);

  beforeAll(async () => {
    for (const name of [namespace, office, other])
      await core.createNamespace({ body: { metadata: { name, annotations: onKwokNodes } } });
  });
  afterAll(async () => {
    run(helmTools().helm, ['uninstall', release, '-n', namespace, '--wait', '--timeout', '2m']);
    for (const name of [namespace, office, other]) await core.deleteNamespace({ name }).catch(() => {});
  });

  const previous = readdirSync(previousDir).find((f) => f.endsWith('.tgz')) ?? '';

  it(`installs ${previous} and waits until its pods run`, () => {
    helm(['install', release, `${previousDir}/${previous}`, '-n', namespace, '--wait', '--timeout', '5m']);
  });

  it('upgrades to this chart (CRDs applied first, as docs/install.md says) and waits until its pods run', async () => {
    const token = async () =>
      (await core.readNamespacedSecret({ name: release, namespace })).data?.COLONY_BOOTSTRAP_TOKEN;
    const generated = await token();
    ok(
      run(kubectlPath(), [
        '--kubeconfig',
        kubeconfigPath(),
        'apply',
        '--server-side',
        '--force-conflicts',
        '--dry-run=server',
        '-f',
        `${chartDir}/crds/`,
      ]),
      'CRD apply',
    );
    helm(['upgrade', release, chartDir, '-n', namespace, '--wait', '--timeout', '5m']);
    // The token the previous release generated is the one this chart keeps.
    expect(generated).toBeTruthy();
    expect(await token()).toBe(generated);
    const apps = admin.makeApiClient(AppsV1Api);
    const controller = await apps.readNamespacedDeployment({ name: `${release}-controller`, namespace });
    expect(controller.status?.readyReplicas).toBe(2);
    const api = await apps.readNamespacedDeployment({ name: `${release}-api`, namespace });
    expect(api.status?.readyReplicas).toBe(1);
    const history = helm(['history', release, '-n', namespace, '-o', 'json']);
    expect((JSON.parse(history) as { chart: string; status: string }[]).map((h) => h.status)).toEqual([
      'superseded',
      'deployed',
    ]);
  });

  it('helm test runs its hook Job to completion', () => {
    // On kwok the Job's pod is simulated, so this proves the hook wiring (ServiceAccount, Role,
    // ConfigMap, Job); on kind (the e2e workflow) the script really calls the API and reads the Lease.
    const out = helm(['test', release, '-n', namespace, '--timeout', '3m']);
    expect(out).toMatch(/TEST SUITE:\s+\S+-test/);
    expect(out).toMatch(/Phase:\s+Succeeded/);
  });

  const sar = async (sa: 'controller' | 'api', attrs: Record<string, string>) => {
    const review = await admin.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({
      body: {
        spec: {
          user: `system:serviceaccount:${namespace}:${release}-${sa}`,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
          resourceAttributes: attrs,
        },
      },
    });
    return review.status?.allowed ?? false;
  };
  const lease = () => ({
    group: 'coordination.k8s.io',
    resource: 'leases',
    namespace,
    name: `${release}-controller`,
  });
  const grants = (
    ns: () => string,
  ): [string, 'controller' | 'api', () => Record<string, string>, boolean][] => [
    [
      'controller watches AgentBindings',
      'controller',
      () => ({ verb: 'watch', group: 'colony.ai', resource: 'agentbindings', namespace: ns() }),
      true,
    ],
    [
      'controller patches Integration status',
      'controller',
      () => ({
        verb: 'patch',
        group: 'colony.ai',
        resource: 'integrations',
        subresource: 'status',
        namespace: ns(),
      }),
      true,
    ],
    [
      'controller lists Secrets',
      'controller',
      () => ({ verb: 'list', resource: 'secrets', namespace: ns() }),
      true,
    ],
    [
      'controller patches agent StatefulSets',
      'controller',
      () => ({ verb: 'patch', group: 'apps', resource: 'statefulsets', namespace: ns() }),
      true,
    ],
    [
      'controller deletes service Deployments',
      'controller',
      () => ({ verb: 'delete', group: 'apps', resource: 'deployments', namespace: ns() }),
      true,
    ],
    [
      'controller creates PVCs',
      'controller',
      () => ({ verb: 'create', resource: 'persistentvolumeclaims', namespace: ns() }),
      true,
    ],
    [
      'controller records Events',
      'controller',
      () => ({ verb: 'create', group: 'events.k8s.io', resource: 'events', namespace: ns() }),
      true,
    ],
    // The Secrets it renders itself: credential files and per-binding database credentials.
    [
      'controller writes Secrets',
      'controller',
      () => ({ verb: 'create', resource: 'secrets', namespace: ns() }),
      true,
    ],
    [
      'controller watches agent pods',
      'controller',
      () => ({ verb: 'watch', resource: 'pods', namespace: ns() }),
      true,
    ],
    [
      'controller applies agent ConfigMaps',
      'controller',
      () => ({ verb: 'patch', resource: 'configmaps', namespace: ns() }),
      true,
    ],
    // The usage ledger: the meter reads it and replaces it under its resourceVersion, nothing else.
    [
      'controller replaces the usage ledger',
      'controller',
      () => ({ verb: 'update', resource: 'configmaps', namespace: ns(), name: 'colony-usage' }),
      true,
    ],
    [
      'controller replaces other ConfigMaps',
      'controller',
      () => ({ verb: 'update', resource: 'configmaps', namespace: ns(), name: 'someone-else' }),
      false,
    ],
    [
      'controller sets its finalizer on AgentBindings',
      'controller',
      () => ({ verb: 'patch', group: 'colony.ai', resource: 'agentbindings', namespace: ns() }),
      true,
    ],
    [
      'controller deletes pods',
      'controller',
      () => ({ verb: 'delete', resource: 'pods', namespace: ns() }),
      false,
    ],
    [
      'controller deletes PVCs',
      'controller',
      () => ({ verb: 'delete', resource: 'persistentvolumeclaims', namespace: ns() }),
      false,
    ],
    [
      'controller edits Integration specs',
      'controller',
      () => ({ verb: 'patch', group: 'colony.ai', resource: 'integrations', namespace: ns() }),
      false,
    ],
    ['API applies Secrets', 'api', () => ({ verb: 'patch', resource: 'secrets', namespace: ns() }), true],
    [
      'API creates AgentBindings',
      'api',
      () => ({ verb: 'create', group: 'colony.ai', resource: 'agentbindings', namespace: ns() }),
      true,
    ],
    [
      'API deletes Integrations',
      'api',
      () => ({ verb: 'delete', group: 'colony.ai', resource: 'integrations', namespace: ns() }),
      true,
    ],
    // One Secret at a time: the Connect flow's refresher reads an integration's refresh token, and
    // backups copy the Secrets integrations reference into a per-snapshot Secret.
    ['API reads a Secret', 'api', () => ({ verb: 'get', resource: 'secrets', namespace: ns() }), true],
    [
      'API reads the usage ledger',
      'api',
      () => ({ verb: 'get', resource: 'configmaps', namespace: ns(), name: 'colony-usage' }),
      true,
    ],
    [
      'API writes the usage ledger',
      'api',
      () => ({ verb: 'update', resource: 'configmaps', namespace: ns(), name: 'colony-usage' }),
      false,
    ],
    [
      'API creates VolumeSnapshots',
      'api',
      () => ({
        verb: 'create',
        group: 'snapshot.storage.k8s.io',
        resource: 'volumesnapshots',
        namespace: ns(),
      }),
      true,
    ],
    [
      'API deletes PVCs',
      'api',
      () => ({ verb: 'delete', resource: 'persistentvolumeclaims', namespace: ns() }),
      false,
    ],
    ['API lists Secrets', 'api', () => ({ verb: 'list', resource: 'secrets', namespace: ns() }), false],
    [
      'API patches workloads',
      'api',
      () => ({ verb: 'patch', group: 'apps', resource: 'deployments', namespace: ns() }),
      false,
    ],
  ];
  const fixed: [string, 'controller' | 'api', () => Record<string, string>, boolean][] = [
    ['controller renews its Lease', 'controller', () => ({ verb: 'update', ...lease() }), true],
    [
      'controller creates Leases in its namespace',
      'controller',
      () => ({ verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace }),
      true,
    ],
    [
      'controller renews another Lease',
      'controller',
      () => ({ verb: 'update', ...lease(), name: 'kube-scheduler' }),
      false,
    ],
    [
      'controller reads its namespace',
      'controller',
      () => ({ verb: 'get', resource: 'namespaces', name: namespace }),
      true,
    ],
    [
      'controller reads other namespaces',
      'controller',
      () => ({ verb: 'get', resource: 'namespaces', name: 'default' }),
      false,
    ],
    [
      'API lists namespaces (offices are found by label)',
      'api',
      () => ({ verb: 'list', resource: 'namespaces' }),
      true,
    ],
    ['API reads the controller Lease', 'api', () => ({ verb: 'get', ...lease() }), true],
    ['API updates the controller Lease', 'api', () => ({ verb: 'update', ...lease() }), false],
  ];

  it.each([...grants(() => other), ...fixed])(
    'cluster-wide RBAC: %s → %s',
    async (_what, sa, attrs, allowed) => {
      expect(await sar(sa, attrs())).toBe(allowed);
    },
  );

  it('switches to namespaced mode on upgrade: Roles in the watched namespace, nothing elsewhere', async () => {
    helm([
      'upgrade',
      release,
      chartDir,
      '-n',
      namespace,
      '--wait',
      '--timeout',
      '5m',
      ...setJson({ watchNamespace: office }),
    ]);
    for (const [what, sa, attrs, allowed] of [...grants(() => office), ...fixed]) {
      expect(await sar(sa, attrs()), `${what} in the watched namespace`).toBe(allowed);
    }
    for (const [what, sa, attrs] of grants(() => other)) {
      expect(await sar(sa, attrs()), `${what} outside the watched namespace`).toBe(false);
    }
  });
});
