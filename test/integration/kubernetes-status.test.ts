// Status probes against the real local control plane: the API server and the controller's Lease.
import { CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeConfig, kubeconfigPath, withNamespace } from '../support/kube.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let ns: Awaited<ReturnType<typeof withNamespace>>;
let s: TestServer;
const leases = () => kubeConfig().makeApiClient(CoordinationV1Api);

beforeAll(async () => {
  ns = await withNamespace('status');
  s = await startTestServer({
    KUBECONFIG: kubeconfigPath(),
    COLONY_CONTROLLER_LEASE: `${ns.name}/colony-controller`,
  });
});
afterAll(async () => {
  await s.close();
  await ns.dispose();
});

const statusOf = async (service: string) =>
  (await s.app.inject({ url: `/api/v1/status?service=${service}` })).json().services[0];

async function writeLease(holder: string | undefined, renewedSecondsAgo: number) {
  const body = {
    metadata: { name: 'colony-controller', namespace: ns.name },
    spec: {
      ...(holder ? { holderIdentity: holder } : {}),
      leaseDurationSeconds: 15,
      // Lease times are MicroTime: the API server wants six fractional digits.
      renewTime: new V1MicroTime(Date.now() - renewedSecondsAgo * 1000),
    },
  };
  await leases()
    .deleteNamespacedLease({ name: 'colony-controller', namespace: ns.name })
    .catch(() => {});
  await leases().createNamespacedLease({ namespace: ns.name, body });
}

describe('status with a cluster configured', () => {
  it('reports the Kubernetes API server and its real version', async () => {
    const k = await statusOf('kubernetes');
    expect(k.status).toBe('operational');
    expect(k.detail).toMatch(/^kube-apiserver v1\.\d+\.\d+/);
  });

  it('reports the controller down while its Lease does not exist', async () => {
    const c = await statusOf('controller');
    expect(c.status).toBe('down');
  });

  it('reports the leader while the Lease is fresh, and degraded once it goes stale', async () => {
    await writeLease('colony-controller-abc', 1);
    expect(await statusOf('controller')).toMatchObject({
      status: 'operational',
      detail: 'leader colony-controller-abc',
    });
    await writeLease('colony-controller-abc', 60);
    const stale = await statusOf('controller');
    expect(stale.status).toBe('degraded');
    expect(stale.detail).toContain('has not renewed');
    await writeLease(undefined, 1);
    expect((await statusOf('controller')).detail).toBe('no replica holds the leader lease');
  });

  it('lists every probe in the full status, worst state on top', async () => {
    await writeLease('colony-controller-abc', 60);
    const body = (await s.app.inject({ url: '/api/v1/status' })).json();
    expect(body.services.map((x: { name: string }) => x.name)).toEqual([
      'api',
      'database',
      'kubernetes',
      'controller',
    ]);
    expect(body.status).toBe('degraded');
  });
});
