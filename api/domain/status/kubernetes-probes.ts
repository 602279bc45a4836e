// Probes of the Kubernetes API and of the leader Leases (controller, API pollers), used when a cluster is configured.
import { CoordinationV1Api, type KubeConfig, VersionApi } from '@kubernetes/client-node';
import type { Probe } from './probes.ts';

export function kubernetesApiProbe(kc: KubeConfig): Probe {
  const api = kc.makeApiClient(VersionApi);
  return {
    name: 'kubernetes',
    description: 'Kubernetes API server of the cluster Colony manages',
    async check() {
      const v = await api.getCode();
      return { detail: `kube-apiserver ${v.gitVersion}` };
    },
  };
}

/**
 * A leader holds its Lease; a renewTime older than the lease duration means no replica does that
 * work, which is degraded rather than down (the cluster itself still serves).
 */
function leaseProbe(
  kc: KubeConfig,
  lease: string,
  names: Pick<Probe, 'name' | 'description'>,
  now: () => number,
): Probe {
  const [namespace = '', name = ''] = lease.split('/');
  const api = kc.makeApiClient(CoordinationV1Api);
  return {
    ...names,
    async check() {
      const l = await api.readNamespacedLease({ name, namespace });
      const holder = l.spec?.holderIdentity;
      const renewed = l.spec?.renewTime ? new Date(l.spec.renewTime).getTime() : 0;
      const durationMs = (l.spec?.leaseDurationSeconds ?? 15) * 1000;
      if (!holder) return { status: 'degraded', detail: 'no replica holds the leader lease' };
      if (now() - renewed > durationMs) {
        return {
          status: 'degraded',
          detail: `leader ${holder} has not renewed its lease for ${Math.round((now() - renewed) / 1000)}s`,
        };
      }
      return { detail: `leader ${holder}` };
    },
  };
}

export const controllerLeaseProbe = (kc: KubeConfig, lease: string, now: () => number = Date.now): Probe =>
  leaseProbe(
    kc,
    lease,
    { name: 'controller', description: 'Colony controller (leader election Lease)' },
    now,
  );

/** Which API replica runs the cluster-wide pollers (task scheduler, token refresher, sweeps). */
export const pollerLeaseProbe = (kc: KubeConfig, lease: string, now: () => number = Date.now): Probe =>
  leaseProbe(
    kc,
    lease,
    { name: 'pollers', description: 'API background pollers (leader election Lease)' },
    now,
  );
