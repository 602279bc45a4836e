// The controller process (`npm run controller`): it takes the Lease, serves health and metrics,
// and hands the Lease back when it is stopped.
import { randomBytes } from 'node:crypto';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { startControllerProcess } from '../support/controller-process.ts';
import { eventually } from '../support/eventually.ts';
import { installCrds, kubeConfig, withNamespace } from '../support/kube.ts';

describe('the controller process (main/controller.ts)', () => {
  it('leads, reports ready and exposes metrics, then releases its Lease on SIGTERM', async () => {
    await installCrds();
    // Namespaced mode on a namespace of its own keeps it off the other tests' objects.
    const ns = await withNamespace('colony-ctl');
    const lease = `colony-ctl-${randomBytes(3).toString('hex')}`;
    const controller = await startControllerProcess({ namespace: ns.name, lease: `colony-system/${lease}` });
    const leases = kubeConfig().makeApiClient(CoordinationV1Api);
    const holder = async () =>
      (await leases.readNamespacedLease({ name: lease, namespace: 'colony-system' }).catch(() => undefined))
        ?.spec?.holderIdentity;
    try {
      await eventually(async () => (await holder()) !== undefined, 20_000);
      const ready = await eventually(async () => {
        const r = await controller.ready();
        return r?.status === 'ok' ? r : undefined;
      }, 20_000);
      expect(ready).toEqual({ status: 'ok', leader: true });
      expect(await holder()).toBe(await controller.identity());
      // A binding for an agent that does not exist yet: one reconcile that reports WorkloadNotFound.
      await new OfficeCluster(kubeConfig()).saveBinding(
        ns.name,
        'ghost-openai',
        { agentName: 'ghost', integrationId: 'openai', secretName: 'openai-acme', enabled: true },
        'acme',
      );
      const metrics = await eventually(async () => {
        const text = await controller.metrics();
        return /reconcile_duration_seconds_count\{queue="agents",result="success"\} [1-9]/.test(text)
          ? text
          : undefined;
      }, 20_000);
      expect(metrics).toMatch(/colony_controller_leader 1/);
      expect(metrics).toMatch(/colony_controller_queue_depth\{queue="agents"\} 0/);
      // Every request is counted by verb and resource: the informers' lists and watches, the
      // Lease it renews and the status it wrote for the binding.
      expect(metrics).toMatch(/kubernetes_requests_total\{verb="list",resource="agentbindings"\} [1-9]/);
      expect(metrics).toMatch(/kubernetes_requests_total\{verb="watch",resource="agentbindings"\} [1-9]/);
      expect(metrics).toMatch(/kubernetes_requests_total\{verb="(create|update)",resource="leases"\} [1-9]/);
      expect(metrics).toMatch(
        /kubernetes_requests_total\{verb="(apply|patch)",resource="agentbindings\/status"\} [1-9]/,
      );
      controller.child.kill('SIGTERM');
      expect(await controller.exited).toBe(0);
      expect(await holder()).toBeUndefined();
    } finally {
      controller.child.kill('SIGKILL');
      await ns.dispose();
    }
  });
});
