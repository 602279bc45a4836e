// The operator is never stuck and never silently wrong (issue 20), on a real API server: two
// instances of one integration on one agent, names two integrations both claim, an owner's own value
// where Colony injects a reference, writes the API server refuses (a ValidatingAdmissionPolicy),
// and a namespace that enforces the `restricted` Pod Security Standard. Each failure must show on
// the binding (Degraded, with the reason and who is in the way) and as an Event, while the agent's
// other bindings still land.
import {
  AdmissionregistrationV1Api,
  AppsV1Api,
  CoreV1Api,
  EventsV1Api,
  type V1Deployment,
  type V1EnvVar,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import type { AgentBindingObject } from '../../cluster/objects.ts';
import { ColonyController, type ColonyControllerOptions } from '../../controller/colony-controller.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { k8sSecretName } from '../../integrations/registry/secret-name.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, kubeconfigPath, withNamespace } from '../support/kube.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { postgresTarget, sqliteTarget } from '../support/storage-targets.ts';
import { secretField, testRegistry } from '../support/test-registry.ts';

const apps = () => kubeConfig().makeApiClient(AppsV1Api);
const core = () => kubeConfig().makeApiClient(CoreV1Api);
const cluster = () => new OfficeCluster(kubeConfig());

let registryDir: string;
const cleanup: (() => Promise<unknown>)[] = [];

function writeRegistry(): string {
  const r = testRegistry('opc');
  cleanup.push(async () => r.dispose());
  r.add('multi', {
    multiInstance: true,
    requiredSecrets: [secretField('INSTANCE_LABEL', 'text'), secretField('MULTI_TOKEN')],
    agentEnvVars: ['MULTI_TOKEN'],
    credentialFiles: [{ path: '/home/agent/.multi/config', template: 'token={{MULTI_TOKEN}}\n' }],
  });
  // alpha and beta both inject SHARED_TOKEN: no rendering can give an agent both.
  r.add('alpha', { requiredSecrets: [secretField('SHARED_TOKEN')], agentEnvVars: ['SHARED_TOKEN'] });
  r.add('beta', { requiredSecrets: [secretField('SHARED_TOKEN')], agentEnvVars: ['SHARED_TOKEN'] });
  r.add('gamma', { requiredSecrets: [secretField('GAMMA_TOKEN')], agentEnvVars: ['GAMMA_TOKEN'] });
  r.add('denied', { requiredSecrets: [secretField('DENIED_TOKEN')], agentEnvVars: ['DENIED_TOKEN'] });
  // files: a credential file at the path multi's first instance uses.
  r.add('files', {
    requiredSecrets: [secretField('FILES_TOKEN')],
    agentEnvVars: [],
    credentialFiles: [{ path: '/home/agent/.multi/config', template: '{{FILES_TOKEN}}\n' }],
  });
  r.add('tooling', {
    requiredSecrets: [secretField('TOOLING_TOKEN')],
    agentEnvVars: ['TOOLING_TOKEN'],
    cliInstalls: { npm: ['left-pad@1.3.0'] },
  });
  r.add('svc', {
    requiredSecrets: [secretField('SVC_TOKEN')],
    agentEnvVars: [],
    colonyContainer: {
      image: 'colony.local/e2e-service:test',
      port: 8080,
      secretEnv: ['SVC_TOKEN'],
      urlEnv: 'SVC_URL',
    },
  });
  return r.dir;
}

/** An office namespace with its own controller, so each can run with its own settings. */
async function office(
  prefix: string,
  labels: Record<string, string> = {},
  opts: Partial<ColonyControllerOptions> = {},
) {
  const ns = await withNamespace(prefix);
  const officeId = ns.name.replace(/-/g, '').slice(0, 20);
  await core().patchNamespace({
    name: ns.name,
    body: [
      {
        op: 'add',
        path: '/metadata/labels',
        value: { 'colony.ai/test': 'true', 'colony.ai/office': officeId, ...labels },
      },
    ],
  });
  const controller = new ColonyController({
    kc: kubeConfig(),
    registry: loadRegistry(registryDir),
    namespace: ns.name,
    resyncMs: 0,
    ...opts,
  });
  await controller.start();
  cleanup.push(
    () => controller.stop(),
    () => ns.dispose(),
  );
  const configure = async (id: string, data: Record<string, string>, instanceLabel?: string) => {
    const manifest = loadRegistry(registryDir).get(id);
    if (!manifest) throw new Error(id);
    const secretName = k8sSecretName(id, officeId, instanceLabel);
    await cluster().saveSecret(
      renderIntegrationSecret({ manifest, officeId, namespace: ns.name, secretName, data, instanceLabel }),
    );
    const name = instanceLabel ? `${id}-${instanceLabel}` : id;
    await cluster().saveIntegration(ns.name, name, {
      integrationId: id,
      officeId,
      secretName,
      ...(instanceLabel ? { instanceLabel } : {}),
    });
    return secretName;
  };
  const toggle = (agentName: string, id: string, enabled: boolean, instanceLabel?: string) => {
    const resource = instanceLabel ? `${id}-${instanceLabel}` : id;
    return cluster().saveBinding(
      ns.name,
      `${agentName}-${resource}`,
      {
        agentName,
        integrationId: id,
        secretName: k8sSecretName(id, officeId, instanceLabel),
        enabled,
        ...(instanceLabel ? { instanceLabel } : {}),
      },
      officeId,
    );
  };
  const binding = (name: string) =>
    cluster()
      .listBindings(ns.name)
      .then((l) => l.find((b) => b.metadata?.name === name));
  const workload = (name: string) => apps().readNamespacedDeployment({ name, namespace: ns.name });
  return { ns: ns.name, officeId, configure, toggle, binding, workload };
}

const restrictedPod = {
  runAsNonRoot: true,
  runAsUser: 1000,
  seccompProfile: { type: 'RuntimeDefault' },
};
const restrictedContainer = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };

async function createAgent(
  ns: string,
  name: string,
  opts: { restricted?: boolean; labels?: Record<string, string> } = {},
) {
  const body: V1Deployment = {
    metadata: { name, labels: { 'colony.ai/agent': name, ...opts.labels } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          ...(opts.restricted ? { securityContext: restrictedPod } : {}),
          containers: [
            {
              name: 'agent',
              image: 'registry.invalid/agent:1',
              ...(opts.restricted ? { securityContext: restrictedContainer } : {}),
            },
          ],
        },
      },
    },
  };
  await apps().createNamespacedDeployment({ namespace: ns, body });
}

/**
 * Bindings count in creation order, and creation times have whole seconds: a binding meant to come
 * later is created once the clock has left the second the earlier one was created in.
 */
async function laterThan(b: AgentBindingObject | undefined) {
  const created = new Date(b?.metadata?.creationTimestamp ?? NaN).getTime();
  if (Number.isNaN(created)) throw new Error('no creation time');
  await eventually(async () => Date.now() >= created + 1000);
}

const env = (d: V1Deployment) => d.spec?.template.spec?.containers[0]?.env ?? [];
const envNamed = (d: V1Deployment, name: string) => env(d).find((e) => e.name === name);
const condition = (b: AgentBindingObject | undefined, type: string) =>
  b?.status?.conditions?.find((c) => c.type === type);

async function eventsFor(ns: string, name: string) {
  const list = await kubeConfig().makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: ns });
  return list.items.filter((e) => e.regarding?.name === name);
}

beforeAll(async () => {
  await installCrds();
  registryDir = writeRegistry();
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
});

describe('two instances of one integration on one agent', () => {
  it('gives every instance its own env names and file paths; the first also keeps the plain ones', async () => {
    const o = await office('opc-multi');
    const work = await o.configure('multi', { MULTI_TOKEN: 'w' }, 'work');
    const oss = await o.configure('multi', { MULTI_TOKEN: 'o' }, 'oss');
    await createAgent(o.ns, 'coder');
    await o.toggle('coder', 'multi', true, 'work');
    await eventually(
      async () => condition(await o.binding('coder-multi-work'), 'Available')?.status === 'True',
    );
    await laterThan(await o.binding('coder-multi-work'));
    await o.toggle('coder', 'multi', true, 'oss');
    const ref = (e: V1EnvVar | undefined) => e?.valueFrom?.secretKeyRef?.name;
    const d = await eventually(async () => {
      const w = await o.workload('coder');
      return envNamed(w, 'MULTI_TOKEN_OSS') ? w : undefined;
    });
    expect(ref(envNamed(d, 'MULTI_TOKEN'))).toBe(work);
    expect(ref(envNamed(d, 'MULTI_TOKEN_WORK'))).toBe(work);
    expect(ref(envNamed(d, 'MULTI_TOKEN_OSS'))).toBe(oss);
    const mounts = d.spec?.template.spec?.containers[0]?.volumeMounts?.map((m) => m.mountPath).sort();
    expect(mounts).toEqual([
      '/home/agent/.multi/config',
      '/home/agent/.multi/oss/config',
      '/home/agent/.multi/work/config',
    ]);
    const both = await eventually(async () => {
      const [a, b] = await Promise.all([o.binding('coder-multi-work'), o.binding('coder-multi-oss')]);
      return condition(a, 'Available')?.status === 'True' && condition(b, 'Available')?.status === 'True'
        ? [a, b]
        : undefined;
    });
    expect(both[0]?.status?.injectedEnv).toEqual(['MULTI_TOKEN', 'MULTI_TOKEN_WORK']);
    expect(both[1]?.status?.injectedEnv).toEqual(['MULTI_TOKEN_OSS']);
    expect(both.map((b) => b?.status?.observedGeneration)).toEqual(both.map((b) => b?.metadata?.generation));

    // The plain names follow the earliest instance still enabled.
    await o.toggle('coder', 'multi', false, 'work');
    const after = await eventually(async () => {
      const w = await o.workload('coder');
      return envNamed(w, 'MULTI_TOKEN_WORK') ? undefined : w;
    });
    expect(ref(envNamed(after, 'MULTI_TOKEN'))).toBe(oss);
    expect(env(after).map((e) => e.name)).toEqual(['MULTI_TOKEN', 'MULTI_TOKEN_OSS']);
  });
});

describe('names two integrations both claim', () => {
  it('holds back the later binding with InjectionConflict and an Event, and applies the rest', async () => {
    const o = await office('opc-clash');
    const alpha = await o.configure('alpha', { SHARED_TOKEN: 'a' });
    await o.configure('beta', { SHARED_TOKEN: 'b' });
    await o.configure('gamma', { GAMMA_TOKEN: 'g' });
    await o.configure('multi', { MULTI_TOKEN: 'm' }, 'work');
    await o.configure('files', { FILES_TOKEN: 'f' });
    await createAgent(o.ns, 'writer');
    await o.toggle('writer', 'alpha', true);
    await o.toggle('writer', 'multi', true, 'work');
    await eventually(async () => condition(await o.binding('writer-alpha'), 'Available')?.status === 'True');
    await eventually(
      async () => condition(await o.binding('writer-multi-work'), 'Available')?.status === 'True',
    );
    await laterThan(await o.binding('writer-multi-work'));
    await o.toggle('writer', 'beta', true);
    await o.toggle('writer', 'files', true);
    await o.toggle('writer', 'gamma', true);
    const beta = await eventually(async () => {
      const b = await o.binding('writer-beta');
      return condition(b, 'Degraded')?.status === 'True' ? b : undefined;
    });
    expect(condition(beta, 'Degraded')).toMatchObject({ reason: 'InjectionConflict' });
    expect(condition(beta, 'Degraded')?.message).toContain('beta and alpha both inject SHARED_TOKEN');
    expect(condition(beta, 'Available')?.status).toBe('False');
    expect(beta.status?.observedGeneration).toBe(beta.metadata?.generation);
    const files = await eventually(async () => {
      const b = await o.binding('writer-files');
      return condition(b, 'Degraded')?.status === 'True' ? b : undefined;
    });
    expect(condition(files, 'Degraded')?.message).toContain('both mount a file at /home/agent/.multi/config');
    // gamma, enabled after both, still lands; SHARED_TOKEN stays alpha's.
    const d = await eventually(async () => {
      const w = await o.workload('writer');
      return envNamed(w, 'GAMMA_TOKEN') ? w : undefined;
    });
    expect(envNamed(d, 'SHARED_TOKEN')?.valueFrom?.secretKeyRef?.name).toBe(alpha);
    await eventually(async () =>
      (await eventsFor(o.ns, 'writer-beta')).some(
        (e) => e.reason === 'InjectionConflict' && e.type === 'Warning',
      ),
    );
    // Disabling the holder lets the held-back binding in.
    await o.toggle('writer', 'alpha', false);
    await eventually(async () => condition(await o.binding('writer-beta'), 'Available')?.status === 'True');
  });
});

describe("an owner's own value where Colony injects a Secret reference", () => {
  it('is left alone and named with its manager; the agent’s other changes still land; removing it heals', async () => {
    const o = await office('opc-owner');
    await o.configure('gamma', { GAMMA_TOKEN: 'g' });
    await o.configure('alpha', { SHARED_TOKEN: 'a' });
    await createAgent(o.ns, 'ops');
    await o.toggle('ops', 'gamma', true);
    await eventually(async () => condition(await o.binding('ops-gamma'), 'Available')?.status === 'True');
    // kubectl edit: the owner replaces the reference with a plain value.
    // As kubectl edit does: read, change, replace; again on a 409 (the object moved meanwhile).
    const edit = (fn: (env: V1EnvVar[]) => V1EnvVar[]) =>
      eventually(async () => {
        const d = await o.workload('ops');
        const c = d.spec?.template.spec?.containers[0];
        if (!c) throw new Error('no container');
        c.env = fn(c.env ?? []);
        return apps()
          .replaceNamespacedDeployment({
            name: 'ops',
            namespace: o.ns,
            body: d,
            fieldManager: 'kubectl-edit',
          })
          .then(
            () => true,
            (err) => {
              if ((err as { code?: number }).code === 409) return false;
              throw err;
            },
          );
      });
    await edit((e) => e.map((v) => (v.name === 'GAMMA_TOKEN' ? { name: v.name, value: 'owner-value' } : v)));
    const gamma = await eventually(async () => {
      const b = await o.binding('ops-gamma');
      return condition(b, 'Degraded')?.status === 'True' ? b : undefined;
    });
    const degraded = condition(gamma, 'Degraded');
    expect(degraded?.reason).toBe('FieldConflict');
    expect(degraded?.message).toContain('env GAMMA_TOKEN (set by kubectl-edit (Update))');
    expect(condition(gamma, 'Available')?.status).toBe('False');
    expect(gamma.status?.injectedEnv).toEqual([]);
    await eventually(async () =>
      (await eventsFor(o.ns, 'ops-gamma')).some((e) => e.reason === 'FieldConflict'),
    );
    // Another integration's change is not blocked by the conflict.
    await o.toggle('ops', 'alpha', true);
    const d = await eventually(async () => {
      const w = await o.workload('ops');
      return envNamed(w, 'SHARED_TOKEN') ? w : undefined;
    });
    expect(envNamed(d, 'GAMMA_TOKEN')).toEqual({ name: 'GAMMA_TOKEN', value: 'owner-value' });
    await eventually(async () => condition(await o.binding('ops-alpha'), 'Available')?.status === 'True');
    // The owner drops the value: Colony injects the reference again.
    await edit((e) => e.filter((v) => v.name !== 'GAMMA_TOKEN'));
    await eventually(async () => condition(await o.binding('ops-gamma'), 'Available')?.status === 'True');
    expect(envNamed(await o.workload('ops'), 'GAMMA_TOKEN')?.valueFrom?.secretKeyRef?.key).toBe(
      'GAMMA_TOKEN',
    );
  });
});

describe('writes the API server refuses', () => {
  const admission = () => kubeConfig().makeApiClient(AdmissionregistrationV1Api);

  /** A ValidatingAdmissionPolicy on Deployment updates in one namespace, and its binding. */
  async function policy(ns: string, name: string, expression: string, message: string) {
    await admission().createValidatingAdmissionPolicy({
      body: {
        metadata: { name },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: ['apps'],
                apiVersions: ['v1'],
                operations: ['UPDATE'],
                resources: ['deployments'],
              },
            ],
          },
          validations: [{ expression, message }],
        },
      },
    });
    await admission().createValidatingAdmissionPolicyBinding({
      body: {
        metadata: { name },
        spec: {
          policyName: name,
          validationActions: ['Deny'],
          matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } },
        },
      },
    });
    cleanup.push(
      () => admission().deleteValidatingAdmissionPolicyBinding({ name }),
      () => admission().deleteValidatingAdmissionPolicy({ name }),
    );
  }

  /** Policies take effect a moment after they are created: wait until one refuses a dry run. */
  async function untilEnforced(ns: string, probe: V1Deployment) {
    // Unconditional (no resourceVersion): the deployment controller updates the object meanwhile.
    if (probe.metadata) probe.metadata.resourceVersion = undefined;
    await eventually(async () => {
      try {
        await apps().replaceNamespacedDeployment({
          name: probe.metadata?.name ?? '',
          namespace: ns,
          body: probe,
          dryRun: 'All',
        });
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 422;
      }
    });
  }

  it("narrows a refusal down to the binding that causes it, reports the API server's reason, applies the rest", async () => {
    const o = await office('opc-vap');
    await o.configure('gamma', { GAMMA_TOKEN: 'g' });
    await o.configure('denied', { DENIED_TOKEN: 'd' });
    await createAgent(o.ns, 'clerk');
    await createAgent(o.ns, 'probe');
    const name = `${o.ns}-no-denied`;
    await policy(
      o.ns,
      name,
      "!object.spec.template.spec.containers.exists(c, has(c.env) && c.env.exists(e, e.name == 'DENIED_TOKEN'))",
      'DENIED_TOKEN may not be injected here',
    );
    const probe = await o.workload('probe');
    const c = probe.spec?.template.spec?.containers[0];
    if (c) c.env = [{ name: 'DENIED_TOKEN', value: 'x' }];
    await untilEnforced(o.ns, probe);
    await o.toggle('clerk', 'denied', true);
    await o.toggle('clerk', 'gamma', true);
    const denied = await eventually(async () => {
      const b = await o.binding('clerk-denied');
      return condition(b, 'Degraded')?.status === 'True' ? b : undefined;
    });
    expect(condition(denied, 'Degraded')?.reason).toBe('Invalid');
    expect(condition(denied, 'Degraded')?.message).toContain('(422 Invalid)');
    expect(condition(denied, 'Degraded')?.message).toContain('DENIED_TOKEN may not be injected here');
    await eventually(async () => condition(await o.binding('clerk-gamma'), 'Available')?.status === 'True');
    const d = await o.workload('clerk');
    expect(envNamed(d, 'GAMMA_TOKEN')).toBeDefined();
    expect(envNamed(d, 'DENIED_TOKEN')).toBeUndefined();
    await eventually(async () =>
      (await eventsFor(o.ns, 'clerk-denied')).some((e) => e.reason === 'Invalid' && e.type === 'Warning'),
    );
  });

  it('reports a refusal of every write on every binding, and retries until the cluster allows it', async () => {
    const o = await office('opc-lock');
    await o.configure('gamma', { GAMMA_TOKEN: 'g' });
    await createAgent(o.ns, 'locked', { labels: { 'opc/locked': 'true' } });
    const name = `${o.ns}-locked`;
    await policy(
      o.ns,
      name,
      "!has(object.metadata.labels) || !('opc/locked' in object.metadata.labels)",
      'this workload is locked',
    );
    await untilEnforced(o.ns, await o.workload('locked'));
    await o.toggle('locked', 'gamma', true);
    const gamma = await eventually(async () => {
      const b = await o.binding('locked-gamma');
      return condition(b, 'Degraded')?.status === 'True' ? b : undefined;
    });
    expect(condition(gamma, 'Degraded')?.message).toContain('this workload is locked');
    // Unlocking (an update without the label passes the policy) lets the retry through.
    await apps().patchNamespacedDeployment({
      name: 'locked',
      namespace: o.ns,
      body: [{ op: 'remove', path: '/metadata/labels/opc~1locked' }],
    });
    await eventually(
      async () => condition(await o.binding('locked-gamma'), 'Available')?.status === 'True',
      30_000,
    );
  });
});

describe('a namespace that enforces the restricted Pod Security Standard', () => {
  const restricted = { 'pod-security.kubernetes.io/enforce': 'restricted' };
  const podsOf = async (ns: string, app: string) =>
    (await core().listNamespacedPod({ namespace: ns, labelSelector: `app.kubernetes.io/name=${app}` })).items;

  it('admits the init container and the per-office service Colony adds, by default', async () => {
    const o = await office('opc-psa', restricted);
    await o.configure('tooling', { TOOLING_TOKEN: 't' });
    await o.configure('svc', { SVC_TOKEN: 's' });
    await createAgent(o.ns, 'builder', { restricted: true });
    await o.toggle('builder', 'tooling', true);
    await o.toggle('builder', 'svc', true);
    // The ReplicaSet of the injected template creates its pod: admission let it in.
    await eventually(async () => {
      const d = await o.workload('builder');
      const init = d.spec?.template.spec?.initContainers?.[0];
      return init?.securityContext?.runAsNonRoot === true && d.status?.updatedReplicas === 1;
    }, 30_000);
    await eventually(async () => (await podsOf(o.ns, 'colony-svc')).length === 1, 30_000);
    const b = await eventually(async () => {
      const x = await o.binding('builder-svc');
      return condition(x, 'Available')?.status === 'True' ? x : undefined;
    });
    expect(condition(b, 'Degraded')?.status).toBe('False');
  });

  it("surfaces an agent whose own pods are refused on its bindings, with Pod Security's words", async () => {
    const o = await office('opc-psa-agent', restricted);
    await o.configure('tooling', { TOOLING_TOKEN: 't' });
    await createAgent(o.ns, 'careless');
    await o.toggle('careless', 'tooling', true);
    const b = await eventually(async () => {
      const x = await o.binding('careless-tooling');
      return condition(x, 'Degraded')?.reason === 'ReplicaFailure' ? x : undefined;
    }, 30_000);
    expect(condition(b, 'Degraded')?.message).toContain('violates PodSecurity "restricted');
    await eventually(async () =>
      (await eventsFor(o.ns, 'careless-tooling')).some((e) => e.reason === 'ReplicaFailure'),
    );
  });

  it('surfaces a per-office service whose pods are refused on the Integration and its bindings', async () => {
    // An admin replaced the service's securityContext with one restricted forbids.
    const o = await office('opc-psa-svc', restricted, {
      podSecurity: { serviceContainer: { privileged: true } },
    });
    await o.configure('svc', { SVC_TOKEN: 's' });
    await createAgent(o.ns, 'reader', { restricted: true });
    await o.toggle('reader', 'svc', true);
    const i = await eventually(async () => {
      const x = (await cluster().listIntegrations(o.ns)).find((y) => y.metadata?.name === 'svc');
      return x?.status?.conditions?.find((c) => c.type === 'Degraded' && c.status === 'True') ? x : undefined;
    }, 30_000);
    const degraded = i.status?.conditions?.find((c) => c.type === 'Degraded');
    expect(degraded?.reason).toBe('ServiceReplicaFailure');
    expect(degraded?.message).toContain('privileged');
    const b = await eventually(async () => {
      const x = await o.binding('reader-svc');
      return condition(x, 'Degraded')?.reason === 'ServiceReplicaFailure' ? x : undefined;
    });
    expect(condition(b, 'Degraded')?.message).toContain('colony-svc cannot create pods');
    await eventually(async () =>
      (await eventsFor(o.ns, 'svc')).some((e) => e.reason === 'ServiceReplicaFailure'),
    );
  });
});

describe.each([sqliteTarget, postgresTarget])(
  'the toggle API refuses what cannot be injected ($name)',
  (target) => {
    const TOKEN = 'opc-bootstrap-token-0123456789abcdef';
    const auth = { authorization: `Bearer ${TOKEN}` };
    let s: TestServer;
    let o: Awaited<ReturnType<typeof office>>;
    beforeAll(async () => {
      o = await office(`opc-api-${target.name}`);
      s = await startTestServerOn(target, {
        KUBECONFIG: kubeconfigPath(),
        COLONY_BOOTSTRAP_TOKEN: TOKEN,
        COLONY_INTEGRATIONS_DIR: registryDir,
        COLONY_RUN_CONTROLLER: 'false',
      });
    });
    afterAll(() => s.close());
    const save = (id: string, data: Record<string, string>) =>
      s.app.inject({
        method: 'POST',
        url: `/api/v1/offices/${o.officeId}/integrations/${id}/secret`,
        payload: { data },
        headers: auth,
      });
    const toggle = (id: string, enabled: boolean, instanceLabel?: string) =>
      s.app.inject({
        method: 'POST',
        url: `/api/v1/offices/${o.officeId}/integrations/${id}/agents/analyst`,
        payload: { enabled, secretName: k8sSecretName(id, o.officeId, instanceLabel) },
        headers: auth,
      });

    it('answers 409 injection_conflict for names another enabled integration holds, writing nothing', async () => {
      for (const [id, key] of [
        ['alpha', 'SHARED_TOKEN'],
        ['beta', 'SHARED_TOKEN'],
      ] as const)
        expect((await save(id, { [key]: `${id}-value` })).statusCode).toBe(200);
      expect((await toggle('alpha', true)).statusCode).toBe(200);
      const res = await toggle('beta', true);
      expect(res.statusCode).toBe(409);
      expect(res.headers['content-type']).toContain('application/problem+json');
      const body = res.json();
      expect(body.type).toContain('injection_conflict');
      expect(body.detail).toBe('Cannot enable beta for analyst: beta and alpha both inject SHARED_TOKEN.');
      expect(body.conflicts).toEqual([
        { kind: 'env', name: 'SHARED_TOKEN', holder: 'alpha', refused: 'beta' },
      ]);
      expect(await o.binding('analyst-beta')).toBeUndefined();
      expect(JSON.stringify(body)).not.toContain('alpha-value');
      // Once alpha is off, beta may be enabled.
      expect((await toggle('alpha', false)).statusCode).toBe(200);
      expect((await toggle('beta', true)).statusCode).toBe(200);
    });

    it('lets two instances of one integration onto one agent, and refuses a file path another holds', async () => {
      for (const label of ['work', 'oss'])
        expect((await save('multi', { INSTANCE_LABEL: label, MULTI_TOKEN: label })).statusCode).toBe(200);
      expect((await toggle('multi', true, 'work')).statusCode).toBe(200);
      await laterThan(await o.binding('analyst-multi-work'));
      expect((await toggle('multi', true, 'oss')).statusCode).toBe(200);
      expect((await save('files', { FILES_TOKEN: 'f' })).statusCode).toBe(200);
      const res = await toggle('files', true);
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toContain(
        'files and multi-work both mount a file at /home/agent/.multi/config',
      );
    });
  },
);
