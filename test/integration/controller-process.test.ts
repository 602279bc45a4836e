// The controller process (`npm run controller`): it takes the Lease, serves health and metrics,
// and hands the Lease back when it is stopped.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { OfficeCluster } from '../../api/office/office-cluster.ts';
import { installCrds, kubeConfig, kubeconfigPath, withNamespace } from '../support/kube.ts';
import { eventually } from '../support/server.ts';

describe('the controller process (controller/main.ts)', () => {
  it('leads, reports ready and exposes metrics, then releases its Lease on SIGTERM', async () => {
    await installCrds();
    // Namespaced mode on a namespace of its own keeps it off the other tests' objects.
    const ns = await withNamespace('colony-ctl');
    const lease = `colony-ctl-${randomBytes(3).toString('hex')}`;
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = spawn(process.execPath, [new URL('../../controller/main.ts', import.meta.url).pathname], {
      env: {
        ...process.env,
        KUBECONFIG: kubeconfigPath(),
        COLONY_CONTROLLER_LEASE: `colony-system/${lease}`,
        COLONY_WATCH_NAMESPACE: ns.name,
        COLONY_CONTROLLER_PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const leases = kubeConfig().makeApiClient(CoordinationV1Api);
    const holder = async () =>
      (await leases.readNamespacedLease({ name: lease, namespace: 'colony-system' }).catch(() => undefined))
        ?.spec?.holderIdentity;
    try {
      await eventually(async () => (await holder()) !== undefined, 20_000);
      const ready = await eventually(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.status === 200 ? res.json() : undefined;
      }, 20_000);
      expect(ready).toEqual({ status: 'ok', leader: true });
      // A binding for an agent that does not exist yet: one reconcile that reports WorkloadNotFound.
      await new OfficeCluster(kubeConfig()).saveBinding(
        ns.name,
        'ghost-openai',
        { agentName: 'ghost', integrationId: 'openai', secretName: 'openai-acme', enabled: true },
        'acme',
      );
      const scrape = () => fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
      const metrics = await eventually(async () => {
        const text = await scrape();
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
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(await holder()).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
      await ns.dispose();
    }
  });
});
