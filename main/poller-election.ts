// The API replicas elect one of them, by a Lease, to run the cluster-wide pollers. It is the same
// election the controller uses; the API only sees its verdict, through the server's PollerGate.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import type { PollerGate } from '../api/shared/poller-gate.ts';
import { LeaderElector } from '../controller/runtime/leader-election.ts';

export interface PollerElection {
  /** Hands the Lease back (after stopping the pollers), so another replica takes over at once. */
  stop(): Promise<void>;
}

export function electPollerLeader(o: {
  kc: KubeConfig;
  lease: string;
  gate: PollerGate;
  log: FastifyBaseLogger;
}): PollerElection {
  const [namespace = '', name = ''] = o.lease.split('/');
  const identity = `${hostname()}-${randomBytes(3).toString('hex')}`;
  const elector = new LeaderElector({
    kc: o.kc,
    namespace,
    name,
    identity,
    onStartedLeading: () => {
      o.log.info({ identity, lease: o.lease }, 'leading: starting the background pollers');
      void o.gate.set(true);
    },
    onStoppedLeading: () => {
      o.log.info({ identity, lease: o.lease }, 'no longer leading: stopping the background pollers');
      void o.gate.set(false);
    },
    onError: (err) => o.log.warn({ err: (err as Error).message }, 'poller election round failed'),
  });
  elector.start();
  return { stop: () => elector.stop() };
}
