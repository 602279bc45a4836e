// Lease-based leader election (coordination.k8s.io/v1): one replica leads, the others wait and take
// over when the leader releases its Lease or stops renewing it.
import { CoordinationV1Api, type KubeConfig, type V1Lease, V1MicroTime } from '@kubernetes/client-node';

export interface LeaderElectionOptions {
  kc: KubeConfig;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  /** A leader that cannot renew for this long steps down (must be below leaseDurationMs). */
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  onError?(err: unknown): void;
}

const statusOf = (err: unknown): number | undefined => (err as { code?: number }).code;

export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private readonly o: Required<Omit<LeaderElectionOptions, 'onError'>> &
    Pick<LeaderElectionOptions, 'onError'>;
  private timer: NodeJS.Timeout | undefined;
  /** The round in progress, so stop() releases only after it and never races its write. */
  private round: Promise<void> | undefined;
  private leading = false;
  /** Whether the last round ended holding the Lease (it can, unannounced, when stop() came mid-round). */
  private heldLastRound = false;
  private stopped = true;
  private lastRenewed = 0;
  /** What we last saw of someone else's record, and when we saw it change (local clock, no skew). */
  private observed = { holder: '', renewTime: '', at: 0 };

  constructor(opts: LeaderElectionOptions) {
    this.o = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...opts };
    this.api = opts.kc.makeApiClient(CoordinationV1Api);
  }

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.runRound();
  }

  private runRound(): void {
    this.round = this.tick();
  }

  /** Stops campaigning; a leader hands the Lease back so another replica can take over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
    if (!this.leading && !this.heldLastRound) return;
    this.setLeading(false);
    try {
      const lease = await this.read();
      if (lease?.spec?.holderIdentity === this.o.identity) {
        lease.spec.holderIdentity = undefined;
        lease.spec.leaseDurationSeconds = 1;
        lease.spec.renewTime = new V1MicroTime(Date.now());
        lease.spec.acquireTime = undefined;
        await this.api.replaceNamespacedLease({
          name: this.o.name,
          namespace: this.o.namespace,
          body: lease,
        });
      }
    } catch (err) {
      this.o.onError?.(err);
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let held = false;
    try {
      held = await this.tryAcquireOrRenew();
    } catch (err) {
      this.o.onError?.(err);
    }
    this.heldLastRound = held;
    // stop() was called during this round: it owns the hand-over; announcing a lead now would be false.
    if (this.stopped) return;
    if (held) {
      this.lastRenewed = Date.now();
      this.setLeading(true);
    } else if (this.leading && this.renewExpired()) {
      // Past the renew deadline another replica may already have taken over: stop acting now.
      this.setLeading(false);
    }
    this.timer = setTimeout(() => this.runRound(), this.o.retryPeriodMs);
  }

  private renewExpired(): boolean {
    return Date.now() - this.lastRenewed > this.o.renewDeadlineMs;
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (leading) this.o.onStartedLeading();
    else this.o.onStoppedLeading();
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({ name: this.o.name, namespace: this.o.namespace });
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw err;
    }
  }

  /** One round: true when this replica holds the Lease afterwards. A lost write race is just "no". */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new V1MicroTime(Date.now());
    const durationSeconds = Math.ceil(this.o.leaseDurationMs / 1000);
    const lease = await this.read();
    if (!lease) {
      return this.write(() =>
        this.api.createNamespacedLease({
          namespace: this.o.namespace,
          body: {
            metadata: { name: this.o.name, namespace: this.o.namespace },
            spec: {
              holderIdentity: this.o.identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: 0,
            },
          },
        }),
      );
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const renewTime = spec.renewTime ? new Date(spec.renewTime).toISOString() : '';
    if (holder !== this.observed.holder || renewTime !== this.observed.renewTime) {
      this.observed = { holder, renewTime, at: Date.now() };
    }
    const heldByOther = holder !== '' && holder !== this.o.identity;
    const otherExpired =
      Date.now() - this.observed.at > (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (heldByOther && !otherExpired) return false;
    const transitions = (spec.leaseTransitions ?? 0) + (holder === this.o.identity ? 0 : 1);
    lease.spec = {
      ...spec,
      holderIdentity: this.o.identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: now,
      acquireTime:
        holder === this.o.identity && spec.acquireTime
          ? new V1MicroTime(new Date(spec.acquireTime).getTime())
          : now,
      leaseTransitions: transitions,
    };
    // resourceVersion rides along, so of two replicas racing for an expired Lease only one wins.
    return this.write(() =>
      this.api.replaceNamespacedLease({ name: this.o.name, namespace: this.o.namespace, body: lease }),
    );
  }

  private async write(call: () => Promise<unknown>): Promise<boolean> {
    try {
      await call();
      return true;
    } catch (err) {
      if (statusOf(err) === 409) return false;
      throw err;
    }
  }
}
