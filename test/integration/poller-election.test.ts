// The API replicas' poller Lease on a real API server: one replica runs the cluster-wide pollers, the
// status page names it, the metric tells the replicas apart, and a replica that stops hands over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PollerGate } from '../../api/shared/poller-gate.ts';
import { electPollerLeader, type PollerElection } from '../../main/poller-election.ts';
import { eventually } from '../support/eventually.ts';
import { kubeConfig, withNamespace } from '../support/kube.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let ns: Awaited<ReturnType<typeof withNamespace>>;
const servers: TestServer[] = [];
beforeAll(async () => {
  ns = await withNamespace('pollers');
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await ns.dispose();
});

interface Replica {
  server: TestServer;
  gate: PollerGate;
  election: PollerElection;
}

async function replica(lease: string): Promise<Replica> {
  const env = { KUBECONFIG: process.env.KUBECONFIG ?? '', COLONY_POLLER_LEASE: lease };
  const gate = new PollerGate(false);
  const server = await startTestServer(env, { pollerGate: gate });
  servers.push(server);
  const election = electPollerLeader({ kc: kubeConfig(), lease, gate, log: server.app.log });
  return { server, gate, election };
}

const leaderMetric = async (r: Replica) => {
  const text = (await r.server.app.inject({ url: '/metrics' })).body;
  return /^colony_poller_leader (\d)/m.exec(text)?.[1];
};

async function pollersStatus(r: Replica) {
  const body = (await r.server.app.inject({ url: '/api/v1/status' })).json() as {
    services: { name: string; status: string; detail?: string }[];
  };
  return body.services.find((s) => s.name === 'pollers');
}

describe('poller leader election', () => {
  it('runs the pollers on one replica at a time and hands them over when it stops', async () => {
    const lease = `${ns.name}/colony-api-pollers`;
    const replicas = [await replica(lease), await replica(lease)];
    const leader = await eventually(async () => replicas.find((r) => r.gate.leading));
    const other = replicas.find((r) => r !== leader) as Replica;
    expect(other.gate.leading).toBe(false);
    expect([await leaderMetric(leader), await leaderMetric(other)]).toEqual(['1', '0']);
    expect(await pollersStatus(other)).toMatchObject({ status: 'operational' });
    expect((await pollersStatus(other))?.detail).toMatch(/^leader /);

    // SIGTERM's path: the leader stops its pollers and hands the Lease back; the other takes over.
    await leader.election.stop();
    expect(leader.gate.leading).toBe(false);
    await eventually(async () => other.gate.leading);
    expect([await leaderMetric(leader), await leaderMetric(other)]).toEqual(['0', '1']);
    await other.election.stop();
  });
});
