// The manifest v2 layers on a real control plane and a real PostgreSQL: applied for enabled agents
// only, removed on disable, and every refusal reported with the rule that caused it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { GROUP, VERSION } from '../../cluster/crds/crds.ts';
import { officeDatabase } from '../../cluster/database-names.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import { ColonyController } from '../../controller/colony-controller.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { agentStatefulSet } from '../support/agents.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';
import { postgresUrl } from '../support/storage-targets.ts';

const GOOD = 'good-token';
let ns: Awaited<ReturnType<typeof withNamespace>>;
let controller: ColonyController;
let provider: Server;
let registryDir: string;
let office: string;
const apps = () => kubeConfig().makeApiClient(AppsV1Api);
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const custom = () => kubeConfig().makeApiClient(CustomObjectsApi);
const cluster = () => new OfficeCluster(kubeConfig());

function writeRegistry(port: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'colony-layers-'));
  const add = (id: string, manifest: Record<string, unknown>, files: Record<string, string> = {}) => {
    mkdirSync(join(dir, id));
    writeFileSync(
      join(dir, id, 'manifest.yaml'),
      stringify({ id, name: id, description: `${id} test`, icon: id, version: '2.0.0', ...manifest }),
    );
    writeFileSync(join(dir, id, 'guide.md'), `# ${id}\n`);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, id, name), text);
  };
  add(
    'acme',
    {
      category: 'services',
      wizard: 'guide',
      requiredSecrets: [
        { key: 'ACME_TOKEN', label: 'Token', type: 'password', required: true },
        { key: 'ACME_REGION', label: 'Region', type: 'text', required: false },
      ],
      agentEnvVars: ['ACME_TOKEN'],
      tools: {
        mcpServers: [
          { name: 'acme', command: 'acme-mcp', args: ['--stdio'], env: { TOKEN: '$' + '{ACME_TOKEN}' } },
        ],
      },
      cliInstalls: { npm: ['acme-cli@1.0.0'] },
      credentialFiles: [
        {
          path: '/home/agent/.acme/config.json',
          template: '{"token": {{json ACME_TOKEN}}, "region": "{{ACME_REGION}}", "office": "{{officeId}}"}\n',
        },
      ],
      sharedDrive: { subdirectories: ['inbox'] },
      database: { migrations: ['001-tickets.sql'] },
      members: {
        requiredRoles: ['support'],
        maxAgents: 1,
        agentConfig: [{ key: 'ACME_QUEUE', label: 'Queue', default: 'general' }],
      },
      credentialCheck: {
        url: `http://127.0.0.1:${port}/me`,
        headers: { Authorization: 'Bearer {{ACME_TOKEN}}' },
      },
    },
    {
      '001-tickets.sql':
        "CREATE TABLE tickets (id serial PRIMARY KEY, title text NOT NULL);\nINSERT INTO tickets (title) VALUES ('first');\n",
    },
  );
  add(
    'other',
    {
      category: 'services',
      wizard: 'guide',
      requiredSecrets: [{ key: 'OTHER_KEY', label: 'K', type: 'password', required: true }],
      agentEnvVars: ['OTHER_KEY'],
      database: { migrations: ['001.sql'] },
    },
    { '001.sql': 'CREATE TABLE secrets_of_other (v text);' },
  );
  return dir;
}

async function configure(id: string, data: Record<string, string>) {
  const manifest = loadRegistry(registryDir).get(id);
  if (!manifest) throw new Error(id);
  const secretName = `${id}-${office}`;
  await cluster().saveSecret(
    renderIntegrationSecret({ manifest, officeId: office, namespace: ns.name, secretName, data }),
  );
  await cluster().saveIntegration(ns.name, id, { integrationId: id, officeId: office, secretName });
}

const toggle = (agentName: string, id: string, enabled: boolean, config?: Record<string, string>) =>
  cluster().saveBinding(
    ns.name,
    `${agentName}-${id}`,
    { agentName, integrationId: id, secretName: `${id}-${office}`, enabled, ...(config ? { config } : {}) },
    office,
  );

async function createAgent(name: string, roles: string) {
  const body = agentStatefulSet(name, { annotations: { 'colony.ai/roles': roles } });
  await apps().createNamespacedStatefulSet({ namespace: ns.name, body });
}

const template = async (name: string) =>
  (await apps().readNamespacedStatefulSet({ name, namespace: ns.name })).spec?.template;
const condition = async (binding: string) => {
  const b = (await custom().getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: ns.name,
    plural: 'agentbindings',
    name: binding,
  })) as {
    status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
  };
  return {
    available: b.status?.conditions?.find((c) => c.type === 'Available'),
    degraded: b.status?.conditions?.find((c) => c.type === 'Degraded'),
  };
};
const reasonIs = async (binding: string, reason: string) => {
  try {
    return await eventually(async () => {
      const c = await condition(binding);
      return c.degraded?.reason === reason || c.available?.reason === reason ? c : undefined;
    }, 20_000);
  } catch (err) {
    throw new Error(`${binding} never reached ${reason}: ${JSON.stringify(await condition(binding))}`, {
      cause: err,
    });
  }
};

beforeAll(async () => {
  provider = createServer((req, res) => {
    res.statusCode = req.headers.authorization === `Bearer ${GOOD}` ? 200 : 401;
    res.end();
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  const port = (provider.address() as { port: number }).port;
  registryDir = writeRegistry(port);
  await installCrds();
  ns = await withNamespace('office-layers');
  office = ns.name.replace(/^office-/, 'l');
  controller = new ColonyController({
    kc: kubeConfig(),
    registry: loadRegistry(registryDir),
    resyncMs: 0,
    namespace: ns.name,
    officeDatabaseUrl: postgresUrl(),
    initImage: 'toolbox:test',
    credentialChecks: true,
  });
  await controller.start();
});
afterAll(async () => {
  await controller.stop();
  await ns.dispose();
  provider.close();
  rmSync(registryDir, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${officeDatabase(office)} WITH (FORCE)`);
  await admin.end();
});

describe('manifest v2 layers', () => {
  it('refuses bad credentials by their check, then injects every layer once they pass', async () => {
    await createAgent('helper', 'support,writer');
    await configure('acme', { ACME_TOKEN: 'wrong', ACME_REGION: 'eu' });
    await toggle('helper', 'acme', true);
    const refused = await reasonIs('helper-acme', 'CredentialCheckFailed');
    expect(refused.available?.status).toBe('False');
    expect(refused.degraded?.message).toContain('HTTP 401');
    expect(refused.degraded?.message).not.toContain('wrong');

    await configure('acme', { ACME_TOKEN: GOOD, ACME_REGION: 'eu' });
    await reasonIs('helper-acme', 'Injected');
    const t = await template('helper');
    const c = t?.spec?.containers[0];
    expect(c?.env?.map((e) => e.name).sort()).toEqual(['ACME_DATABASE_URL', 'ACME_QUEUE', 'ACME_TOKEN']);
    expect(c?.env?.find((e) => e.name === 'ACME_QUEUE')?.value).toBe('general');
    expect(c?.volumeMounts?.map((m) => m.mountPath).sort()).toEqual([
      '/etc/colony/integrations',
      '/home/agent/.acme/config.json',
      '/opt/colony/tools',
      '/shared/files/_integrations/acme',
    ]);
    const init = t?.spec?.initContainers?.[0];
    expect(init?.name).toBe('colony-init');
    expect(init?.image).toBe('toolbox:test');
    expect(init?.command?.[2]).toContain("'acme-cli@1.0.0'");
    expect(init?.command?.[2]).toContain(
      "mkdir -p '/shared/files/_integrations/acme' '/shared/files/_integrations/acme/inbox'",
    );
    expect(t?.metadata?.labels?.['colony.ai/agent']).toBe('helper');

    const files = await core().readNamespacedSecret({ name: `acme-${office}-files`, namespace: ns.name });
    expect(Buffer.from(files.data?.['file-0'] ?? '', 'base64').toString()).toBe(
      `{"token": "${GOOD}", "region": "eu", "office": "${office}"}\n`,
    );
    const cm = await core().readNamespacedConfigMap({
      name: 'helper-colony-integrations',
      namespace: ns.name,
    });
    expect(JSON.parse(cm.data?.['integrations.json'] ?? '{}').mcpServers.acme).toEqual({
      command: 'acme-mcp',
      args: ['--stdio'],
      env: { TOKEN: '$' + '{ACME_TOKEN}' },
      integration: 'acme',
    });
    const pvc = await core().readNamespacedPersistentVolumeClaim({
      name: 'colony-drive-acme',
      namespace: ns.name,
    });
    expect(pvc.spec?.resources?.requests?.storage).toBe('1Gi');
  });

  it('gives the agent a database role with grants on the integration’s tables only', async () => {
    const secret = await eventually(async () =>
      core()
        .readNamespacedSecret({ name: 'helper-acme-db', namespace: ns.name })
        .catch(() => undefined),
    );
    const url = Buffer.from(secret.data?.ACME_DATABASE_URL ?? '', 'base64').toString();
    expect(url).toContain(`/${officeDatabase(office)}?`);
    const agent = new pg.Client({ connectionString: url });
    await agent.connect();
    expect((await agent.query('SELECT title FROM tickets')).rows).toEqual([{ title: 'first' }]);
    await agent.query("INSERT INTO tickets (title) VALUES ('from the agent')");
    await expect(agent.query('CREATE TABLE mine (x int)')).rejects.toThrow(/permission denied/);
    await agent.end();
    // Another integration's tables in the same database are out of reach.
    const admin = new pg.Client({ connectionString: url.replace(/\/\/[^@]+@/, `//colony:colony@`) });
    await admin.connect();
    await admin.query('CREATE SCHEMA integ_other; CREATE TABLE integ_other.notes (v text)');
    // Nobody but the roles Colony grants may connect to an office's database.
    const acl = await admin.query(
      'SELECT datacl::text AS acl FROM pg_database WHERE datname = current_database()',
    );
    expect(acl.rows[0].acl).not.toMatch(/[{,]=[A-Za-z]*c/);
    await admin.end();
    const again = new pg.Client({ connectionString: url });
    await again.connect();
    await expect(again.query('SELECT * FROM integ_other.notes')).rejects.toThrow(/permission denied/);
    await again.end();
  });

  it('refuses agents that break the members rules, naming the rule', async () => {
    await createAgent('intern', 'writer');
    await toggle('intern', 'acme', true);
    const roles = await reasonIs('intern-acme', 'MembersRuleViolated');
    expect(roles.degraded?.message).toBe(
      'requiredRoles: acme needs agents with the role support; intern holds writer',
    );
    await createAgent('second', 'support');
    await toggle('second', 'acme', true);
    const max = await reasonIs('second-acme', 'MembersRuleViolated');
    expect(max.degraded?.message).toContain(
      'maxAgents: acme may be enabled for at most 1 agent(s); already enabled for helper',
    );
    expect((await template('second'))?.spec?.containers[0]?.env ?? []).toEqual([]);
  });

  it('reports a failed install on the binding of the integration that failed', async () => {
    // The pod of the StatefulSet's current template: an earlier one is about to be replaced.
    const pod = await eventually(async () => {
      const [p, sts] = await Promise.all([
        core()
          .readNamespacedPod({ name: 'helper-0', namespace: ns.name })
          .catch(() => undefined),
        apps().readNamespacedStatefulSet({ name: 'helper', namespace: ns.name }),
      ]);
      const current = p?.metadata?.labels?.['controller-revision-hash'] === sts.status?.updateRevision;
      return current && p?.status?.phase === 'Running' && p.spec?.initContainers?.length ? p : undefined;
    }, 30_000);
    // kwok fills initContainerStatuses in a later stage than the Running phase: on a loaded machine
    // the path may not exist yet and the JSON patch is refused (422), so it is retried until it takes;
    // a pod being replaced after all (404) is patched once its successor exists.
    await eventually(
      async () =>
        core()
          .patchNamespacedPodStatus({
            name: 'helper-0',
            namespace: ns.name,
            body: [
              {
                op: 'replace',
                path: '/status/initContainerStatuses/0/state',
                value: {
                  terminated: {
                    exitCode: 1,
                    reason: 'Error',
                    message: 'npm error 404 acme-cli\ncolony-init: acme: failed at line 9\n',
                  },
                },
              },
            ],
          })
          .then(() => true)
          .catch((err: { code?: number }) => {
            if (err.code === 422 || err.code === 404) return false;
            throw err;
          }),
      15_000,
    );
    expect(pod.metadata?.name).toBe('helper-0');
    const failed = await reasonIs('helper-acme', 'InstallFailed');
    expect(failed.available?.status).toBe('True');
    expect(failed.degraded?.message).toContain('colony-init failed on pod helper-0 (exit 1)');
  });

  it('removes every layer on disable, revokes the database role and keeps the drive', async () => {
    const url = Buffer.from(
      (await core().readNamespacedSecret({ name: 'helper-acme-db', namespace: ns.name })).data
        ?.ACME_DATABASE_URL ?? '',
      'base64',
    ).toString();
    await toggle('helper', 'acme', false);
    await eventually(
      async () => ((await template('helper'))?.spec?.initContainers ?? []).length === 0,
      20_000,
    );
    const t = await template('helper');
    expect(t?.spec?.containers[0]?.env ?? []).toEqual([]);
    expect(t?.spec?.containers[0]?.volumeMounts ?? []).toEqual([]);
    expect(t?.spec?.volumes ?? []).toEqual([]);
    await eventually(
      async () =>
        !(await core()
          .readNamespacedSecret({ name: 'helper-acme-db', namespace: ns.name })
          .catch(() => undefined)),
    );
    const revoked = new pg.Client({ connectionString: url });
    await expect(revoked.connect()).rejects.toThrow(/password authentication failed|does not exist/);
    expect(
      (await core().readNamespacedPersistentVolumeClaim({ name: 'colony-drive-acme', namespace: ns.name }))
        .metadata?.name,
    ).toBe('colony-drive-acme');
  });
});
