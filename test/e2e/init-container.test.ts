// The colony-init container for real: on the node, in a namespace that enforces the `restricted`
// Pod Security Standard, the init image `npm run image` builds runs unprivileged and makes an
// integration's shared-drive folders, writable by an agent that runs as another user.

import { randomBytes } from 'node:crypto';
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import { ColonyController } from '../../controller/colony-controller.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { installCrds, kubeConfig } from '../support/kube.ts';
import { secretField, type TestRegistry, testRegistry } from '../support/test-registry.ts';
import { colonyMode } from './support/colony-under-test.ts';
import { eventually } from './support/eventually.ts';
import { NODE } from './support/in-pod.ts';
import { isReady, podSummary } from './support/pod-status.ts';

const image = process.env.COLONY_E2E_IMAGE ?? '';
// Built beside the Colony image, with its tag (scripts/image/build.sh).
const initImage = image.replace(/:([^:/]+)$/, '-init:$1');
const namespace = `${process.env.COLONY_E2E_NAMESPACE_PREFIX ?? 'colony-e2e'}-init-${randomBytes(3).toString('hex')}`;
const office = namespace.replaceAll('-', '').slice(0, 24);
const DRIVE = '/shared/files/_integrations/drive';
// The agent writes into both folders, then stays up.
const AGENT = `
const fs = process.getBuiltinModule('fs');
for (const d of ['inbox', 'outbox']) fs.writeFileSync('${DRIVE}/' + d + '/probe', String(process.getuid()));
console.log('wrote as ' + process.getuid());
setInterval(() => {}, 1 << 30);`;

let admin: KubeConfig;
let controller: ColonyController | undefined;
let registry: TestRegistry | undefined;

describe.skipIf(colonyMode === 'local' || !image)('colony-init on the node (needs COLONY_E2E_IMAGE)', () => {
  beforeAll(async () => {
    admin = kubeConfig();
    await installCrds();
    registry = testRegistry('init-e2e').add('drive', {
      requiredSecrets: [secretField('DRIVE_TOKEN')],
      agentEnvVars: ['DRIVE_TOKEN'],
      sharedDrive: { subdirectories: ['inbox', 'outbox'], size: '16Mi' },
    });
    await admin.makeApiClient(CoreV1Api).createNamespace({
      body: {
        metadata: {
          name: namespace,
          labels: { 'colony.ai/office': office, 'pod-security.kubernetes.io/enforce': 'restricted' },
        },
      },
    });
    controller = new ColonyController({
      kc: admin,
      registry: loadRegistry(registry.dir),
      namespace,
      initImage,
    });
    await controller.start();
  });
  afterAll(async () => {
    await controller?.stop();
    await admin
      ?.makeApiClient(CoreV1Api)
      .deleteNamespace({ name: namespace })
      .catch(() => {});
    registry?.dispose();
  });

  it('makes the drive folders unprivileged, for an agent running as another user', async () => {
    const manifest = loadRegistry(registry?.dir ?? '').get('drive');
    if (!manifest) throw new Error('no drive manifest');
    const cluster = new OfficeCluster(admin);
    const secretName = `drive-${office}`;
    await cluster.saveSecret(
      renderIntegrationSecret({
        manifest,
        officeId: office,
        namespace,
        secretName,
        data: { DRIVE_TOKEN: 'd' },
      }),
    );
    await cluster.saveIntegration(namespace, 'drive', {
      integrationId: 'drive',
      officeId: office,
      secretName,
    });
    await admin.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'keeper', labels: { 'colony.ai/agent': 'keeper' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'keeper' } },
          template: {
            metadata: { labels: { app: 'keeper' } },
            spec: {
              terminationGracePeriodSeconds: 1,
              // The pod's user (the init container's too) and the agent's differ.
              securityContext: {
                runAsNonRoot: true,
                runAsUser: 2000,
                seccompProfile: { type: 'RuntimeDefault' },
              },
              containers: [
                {
                  name: 'agent',
                  image,
                  imagePullPolicy: 'IfNotPresent',
                  command: [NODE, '-e', AGENT],
                  securityContext: {
                    runAsUser: 3000,
                    allowPrivilegeEscalation: false,
                    capabilities: { drop: ['ALL'] },
                  },
                },
              ],
            },
          },
        },
      },
    });
    await cluster.saveBinding(
      namespace,
      'keeper-drive',
      { agentName: 'keeper', integrationId: 'drive', secretName, enabled: true },
      office,
    );
    const core = admin.makeApiClient(CoreV1Api);
    const pod = await eventually(
      'the injected pod is Ready',
      async () => {
        const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app=keeper' });
        const p = pods.items.find((x) => x.spec?.initContainers?.some((c) => c.name === 'colony-init'));
        if (!p || !isReady(p)) throw new Error(p ? podSummary(p) : 'no injected pod yet');
        return p;
      },
      { timeoutMs: 180_000 },
    );
    const init = pod.status?.initContainerStatuses?.find((c) => c.name === 'colony-init');
    expect(init?.state?.terminated?.exitCode).toBe(0);
    expect(pod.spec?.initContainers?.[0]?.image).toBe(initImage);
    const logs = await eventually('the agent wrote into the drive', async () => {
      const text = await core.readNamespacedPodLog({
        name: pod.metadata?.name ?? '',
        namespace,
        container: 'agent',
      });
      if (!text.includes('wrote as 3000')) throw new Error(text || 'no output yet');
      return text;
    });
    expect(logs).toContain('wrote as 3000');
    const binding = await eventually('the binding is Available', async () => {
      const b = (await cluster.listBindings(namespace)).find((x) => x.metadata?.name === 'keeper-drive');
      const available = b?.status?.conditions?.find((c) => c.type === 'Available');
      if (available?.status !== 'True') throw new Error(JSON.stringify(b?.status?.conditions ?? []));
      return b;
    });
    expect(binding?.status?.conditions?.find((c) => c.type === 'Degraded')?.status).toBe('False');
  });
});
