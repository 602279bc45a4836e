// What the cluster's node gives every pod, checked with real containers before any Colony story
// relies on it: an address of its own, cluster DNS (`kubernetes.default` included), Services through
// kube-proxy, the API server from inside a pod with its ServiceAccount token, and `kubectl logs`,
// `exec` and `port-forward` through the API server.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeConfig, kubectl } from '../support/kube.ts';
import { colonyMode } from './support/colony-under-test.ts';
import { eventually } from './support/eventually.ts';
import { execInPod, fetchFromPod, NODE, type PodRef } from './support/in-pod.ts';
import { isReady } from './support/pod-status.ts';
import { freePort, spawnPortForward, stopProcess } from './support/processes.ts';

const image = process.env.COLONY_E2E_IMAGE;
const namespace = `${process.env.COLONY_E2E_NAMESPACE_PREFIX ?? 'colony-e2e'}-node-${randomBytes(3).toString('hex')}`;
const greeting = `hello from ${namespace}`;
// Prints one line, then answers every request with the pod's name.
const SERVER = `
const os = process.getBuiltinModule('os');
console.log(${JSON.stringify(greeting)});
process.getBuiltinModule('http').createServer((_q, s) => s.end(os.hostname())).listen(8080);`;

let admin: KubeConfig;
let core: CoreV1Api;

function pod(name: string): V1Pod {
  return {
    metadata: { name, labels: { app: name } },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image,
          imagePullPolicy: 'IfNotPresent',
          command: [NODE, '-e', SERVER],
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 },
          securityContext: { runAsNonRoot: true, runAsUser: 65532, allowPrivilegeEscalation: false },
        },
      ],
    },
  };
}

const ref = (name: string): PodRef => ({ namespace, pod: name, container: 'main' });

async function readyPod(name: string): Promise<V1Pod> {
  return eventually(`${name} is Ready`, async () => {
    const p = await core.readNamespacedPod({ name, namespace });
    if (!isReady(p)) throw new Error(`${name}: ${p.status?.phase}`);
    return p;
  });
}

describe.skipIf(colonyMode === 'local' || !image)('the node runs real pods (needs COLONY_E2E_IMAGE)', () => {
  let server: V1Pod;
  let client: V1Pod;

  beforeAll(async () => {
    admin = kubeConfig();
    core = admin.makeApiClient(CoreV1Api);
    await core.createNamespace({
      body: { metadata: { name: namespace, labels: { 'colony.ai/test': 'true' } } },
    });
    await core.createNamespacedPod({ namespace, body: pod('server') });
    await core.createNamespacedPod({ namespace, body: pod('client') });
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'server' },
        spec: { selector: { app: 'server' }, ports: [{ port: 80, targetPort: 'http' }] },
      },
    });
    server = await readyPod('server');
    client = await readyPod('client');
  });

  afterAll(async () => {
    await core?.deleteNamespace({ name: namespace }).catch(() => {});
  });

  it('gives each pod an address of its own, reachable from another pod', async () => {
    const ip = server.status?.podIP ?? '';
    expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(client.status?.podIP).not.toBe(ip);
    expect(await fetchFromPod(ref('client'), `http://${ip}:8080/`)).toMatchObject({
      status: 200,
      body: 'server',
    });
  });

  it('resolves Services by name and routes them through kube-proxy', async () => {
    // A new Service reaches kube-proxy through its EndpointSlice, asynchronously: until kube-proxy has
    // written its rules the ClusterIP is unreachable (EHOSTUNREACH), as for any client of the cluster.
    const byName = await eventually(
      'kube-proxy routes the new Service',
      async () => {
        const answer = await fetchFromPod(ref('client'), `http://server.${namespace}.svc/`);
        if (answer.status === undefined) throw new Error(`no answer: ${JSON.stringify(answer)}`);
        return answer;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(byName).toMatchObject({ status: 200, body: 'server' });
    // The short name, through the pod's DNS search path.
    expect(await fetchFromPod(ref('client'), 'http://server/')).toMatchObject({
      status: 200,
      body: 'server',
    });
  });

  it('resolves kubernetes.default to the API server’s Service and reaches it with the pod’s token', async () => {
    const service = await core.readNamespacedService({ name: 'kubernetes', namespace: 'default' });
    const lookup = `process.getBuiltinModule('dns').lookup('kubernetes.default', (e, a) => console.log(e ? e.code : a))`;
    expect((await execInPod(ref('client'), [NODE, '-e', lookup])).trim()).toBe(service.spec?.clusterIP);
    // The ServiceAccount's CA and token, as every in-cluster client uses them.
    const call = `
const fs = process.getBuiltinModule('fs');
const sa = '/var/run/secrets/kubernetes.io/serviceaccount/';
process.getBuiltinModule('https').get('https://kubernetes.default.svc/version', {
  ca: fs.readFileSync(sa + 'ca.crt'),
  headers: { authorization: 'Bearer ' + fs.readFileSync(sa + 'token', 'utf8') },
}, (r) => { let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => console.log(r.statusCode, JSON.parse(b).gitVersion)); });`;
    const [status, version] = (await execInPod(ref('client'), [NODE, '-e', call])).trim().split(' ');
    expect(status).toBe('200');
    expect(version).toMatch(/^v1\.\d+\.\d+/);
  });

  it('serves kubectl logs from the container’s own output', () => {
    expect(kubectl(['-n', namespace, 'logs', 'server'])).toContain(greeting);
  });

  it('forwards a local port to the pod with kubectl port-forward', async () => {
    const port = await freePort();
    const forward = spawnPortForward(
      'node-port-forward',
      namespace,
      'pod/server',
      [`${port}:8080`],
      tmpdir(),
    );
    try {
      const body = await eventually('the forwarded port answers', async () => {
        const r = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(3000) });
        return r.text();
      });
      expect(body).toBe('server');
    } finally {
      await stopProcess(forward);
    }
  });
});
