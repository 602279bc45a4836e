// PostgreSQL for the in-cluster API, installed by the TEST beside the release (image: Debian's
// postgresql package, test/e2e/images/postgres). The chart deliberately ships no database: users
// bring their own and pass it as secrets.databaseUrl, so the e2e tier does what they do. The data
// lives in an emptyDir: it only has to outlive the run, not the pod.
import { randomBytes } from 'node:crypto';
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { eventually } from './eventually.ts';
import { describePods } from './pod-status.ts';

export const POSTGRES_NAME = 'colony-e2e-postgres';
const USER = 'colony';
const DATABASE = 'colony';

export interface E2ePostgres {
  /** DATABASE_URL as the API pods reach it, through the Service's DNS name. */
  url: string;
}

export async function installPostgres(
  kc: KubeConfig,
  namespace: string,
  image: string,
): Promise<E2ePostgres> {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const password = randomBytes(18).toString('base64url');
  const labels = { 'app.kubernetes.io/name': POSTGRES_NAME, 'colony.ai/test': 'true' };
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: POSTGRES_NAME, labels }, stringData: { POSTGRES_PASSWORD: password } },
  });
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: POSTGRES_NAME, labels },
      spec: {
        replicas: 1,
        strategy: { type: 'Recreate' },
        selector: { matchLabels: { 'app.kubernetes.io/name': POSTGRES_NAME } },
        template: {
          metadata: { labels },
          spec: {
            terminationGracePeriodSeconds: 5,
            containers: [
              {
                name: 'postgres',
                image,
                imagePullPolicy: 'IfNotPresent',
                ports: [{ name: 'postgres', containerPort: 5432 }],
                env: [
                  { name: 'POSTGRES_USER', value: USER },
                  { name: 'POSTGRES_DB', value: DATABASE },
                  {
                    name: 'POSTGRES_PASSWORD',
                    valueFrom: { secretKeyRef: { name: POSTGRES_NAME, key: 'POSTGRES_PASSWORD' } },
                  },
                ],
                readinessProbe: {
                  exec: { command: ['/usr/local/bin/e2e-postgres', 'ready'] },
                  periodSeconds: 2,
                },
                volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
              },
            ],
            volumes: [{ name: 'data', emptyDir: {} }],
          },
        },
      },
    },
  });
  await core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: POSTGRES_NAME, labels },
      spec: {
        selector: { 'app.kubernetes.io/name': POSTGRES_NAME },
        ports: [{ name: 'postgres', port: 5432, targetPort: 'postgres' }],
      },
    },
  });
  await eventually(
    'PostgreSQL is ready',
    async () => {
      const d = await apps.readNamespacedDeployment({ name: POSTGRES_NAME, namespace });
      if ((d.status?.readyReplicas ?? 0) < 1)
        throw new Error(await describePods(core, namespace, `app.kubernetes.io/name=${POSTGRES_NAME}`));
    },
    { timeoutMs: 180_000 },
  );
  return {
    url: `postgres://${USER}:${password}@${POSTGRES_NAME}.${namespace}.svc:5432/${DATABASE}`,
  };
}
