// Leader election on a real API server: one leader at a time, fast hand-over on release, and a
// take-over once a crashed leader's Lease expires.
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElector } from '../../controller/runtime/leader-election.ts';
import { eventually } from '../support/eventually.ts';
import { kubeConfig, withNamespace } from '../support/kube.ts';

let ns: Awaited<ReturnType<typeof withNamespace>>;
beforeAll(async () => {
  ns = await withNamespace('leases');
});
afterAll(() => ns.dispose());

/**
 * A replica's line to the API server: it counts the Lease reads that open each of the replica's
 * rounds (the test's clock, one every retry period) and can be cut, which is how a crash looks from
 * the API server: no renewal and no release.
 */
function apiLink() {
  const base = kubeConfig();
  const kc = Object.create(base) as KubeConfig;
  let reads = 0;
  let cut = false;
  kc.applySecurityAuthentication = async (context) => {
    if (cut) throw new Error('cut off from the API server');
    if (context.getHttpMethod() === 'GET') reads++;
    return base.applySecurityAuthentication.call(kc, context);
  };
  return {
    kc,
    reads: () => reads,
    cut: () => {
      cut = true;
    },
  };
}

function elector(name: string, lease: string, log: string[], kc = kubeConfig()) {
  return new LeaderElector({
    kc,
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
    a.start();
    await eventually(async () => a.isLeader());
    const bLink = apiLink();
    const b = elector('b', 'handover', log, bLink.kc);
    b.start();
    // Four of b's rounds have found a's Lease live (a round every 200 ms: 800 ms).
    await eventually(async () => bLink.reads() >= 5);
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
    const aLink = apiLink();
    const a = elector('a', 'interrupted', log, aLink.kc);
    a.start(); // its first round is now in flight: reading and then creating the Lease
    await a.stop();
    const afterStop = aLink.reads();
    // No later round: while a replica on the same retry period runs two more rounds (400 ms) on a
    // Lease of its own, a stopped one sends nothing.
    const clock = apiLink();
    const c = elector('c', 'interrupted-clock', [], clock.kc);
    c.start();
    await eventually(async () => clock.reads() >= 3);
    await c.stop();
    expect(aLink.reads()).toBe(afterStop);
    expect(a.isLeader()).toBe(false);
    expect(log).toEqual([]);
    expect((await holder('interrupted'))?.holderIdentity ?? '').toBe('');
  });

  it('takes over from a leader that died without releasing, once its Lease expires', async () => {
    const log: string[] = [];
    const aLink = apiLink();
    const a = elector('a', 'crash', log, aLink.kc);
    a.start();
    await eventually(async () => a.isLeader());
    // A crash: the replica never reaches the API server again, the Lease stays as it was.
    aLink.cut();
    const bLink = apiLink();
    const b = elector('b', 'crash', log, bLink.kc);
    b.start();
    // Five of b's rounds have found the Lease live (a round every 200 ms: 1 s of a 2 s Lease).
    await eventually(async () => bLink.reads() >= 6);
    expect(b.isLeader()).toBe(false);
    await eventually(async () => b.isLeader(), 6_000);
    expect((await holder('crash'))?.holderIdentity).toBe('b');
    await b.stop();
    await a.stop();
  });
});
