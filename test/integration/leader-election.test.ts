// Leader election on a real API server: one leader at a time, fast hand-over on release, and a
// take-over once a crashed leader's Lease expires.
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElector } from '../../controller/runtime/leader-election.ts';
import { kubeConfig, withNamespace } from '../support/kube.ts';
import { eventually } from '../support/server.ts';

let ns: Awaited<ReturnType<typeof withNamespace>>;
beforeAll(async () => {
  ns = await withNamespace('leases');
});
afterAll(() => ns.dispose());

function elector(name: string, lease: string, log: string[]) {
  return new LeaderElector({
    kc: kubeConfig(),
    namespace: ns.name,
    name: lease,
    identity: name,
    leaseDurationMs: 2_000,
    renewDeadlineMs: 1_500,
    retryPeriodMs: 200,
    onStartedLeading: () => log.push(`${name} leads`),
    onStoppedLeading: () => log.push(`${name} stops`),
  });
}

const holder = async (lease: string) =>
  (
    await kubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: lease, namespace: ns.name })
  ).spec;

describe('LeaderElector', () => {
  it('lets exactly one of two replicas lead, and hands over at once when the leader stops', async () => {
    const log: string[] = [];
    const a = elector('a', 'handover', log);
    const b = elector('b', 'handover', log);
    a.start();
    await eventually(async () => a.isLeader());
    b.start();
    await new Promise((r) => setTimeout(r, 800));
    expect([a.isLeader(), b.isLeader()]).toEqual([true, false]);
    const started = Date.now();
    await a.stop();
    await eventually(async () => b.isLeader(), 5_000);
    expect(Date.now() - started).toBeLessThan(1_800);
    expect((await holder('handover'))?.holderIdentity).toBe('b');
    expect((await holder('handover'))?.leaseTransitions).toBe(1);
    expect(log).toEqual(['a leads', 'a stops', 'b leads']);
    await b.stop();
  });

  it('releases a Lease won by the round that stop() interrupted, and never announces that lead', async () => {
    const log: string[] = [];
    const a = elector('a', 'interrupted', log);
    a.start(); // its first round is now in flight: reading and then creating the Lease
    await a.stop();
    await new Promise((r) => setTimeout(r, 400));
    expect(a.isLeader()).toBe(false);
    expect(log).toEqual([]);
    expect((await holder('interrupted'))?.holderIdentity ?? '').toBe('');
  });

  it('takes over from a leader that died without releasing, once its Lease expires', async () => {
    const log: string[] = [];
    const a = elector('a', 'crash', log);
    a.start();
    await eventually(async () => a.isLeader());
    // A crash: the process vanishes, the Lease stays as it was.
    (a as unknown as { stopped: boolean }).stopped = true;
    const b = elector('b', 'crash', log);
    b.start();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(b.isLeader()).toBe(false);
    await eventually(async () => b.isLeader(), 6_000);
    expect((await holder('crash'))?.holderIdentity).toBe('b');
    await b.stop();
  });
});
