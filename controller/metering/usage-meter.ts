// The usage meter: every interval, counts each office namespace's agent pods into its usage ledger
// (cluster/usage-ledger.ts). The ledger lives in the cluster, so a restart or a new leader carries on
// from the watermarks; every write names the resourceVersion it read, so of two writers that read the
// same ledger only one lands, and the other re-reads and finds nothing left to count.
import { CoreV1Api, type KubeConfig, type V1ConfigMap, type V1Pod } from '@kubernetes/client-node';
import { ledgerConfigMap, readLedger, USAGE_CONFIGMAP } from '../../cluster/usage-ledger.ts';
import type { Logger } from '../runtime/logger.ts';
import type { SharedInformer } from '../runtime/multi-namespace-informer.ts';
import { advanceLedger } from './pod-usage.ts';

export interface UsageMeterOptions {
  kc: KubeConfig;
  /** The controller's cache of agent pods (every pod labelled colony.ai/agent). */
  pods: SharedInformer<V1Pod>;
  intervalMs: number;
  /** A ledger entry of a pod no longer seen is dropped this long after it was last counted. */
  forgetAfterSeconds?: number;
  now?: () => number;
  log: Logger;
}

export interface FlushResult {
  namespaces: number;
  writes: number;
  conflicts: number;
}

const DEFAULT_FORGET_AFTER_SECONDS = 3600;
const MAX_ATTEMPTS = 5;
const PARALLEL_OFFICES = 4;
const code = (err: unknown) => (err as { code?: number }).code;

export class UsageMeter {
  private readonly core: CoreV1Api;
  private readonly opts: UsageMeterOptions;
  private readonly now: () => number;
  /** Pods deleted since the last flush, kept so their last stretch (to their end) is counted. */
  private readonly deleted = new Map<string, V1Pod>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<unknown> = Promise.resolve();
  /** Totals since start, for metrics and the benchmark. */
  readonly totals: FlushResult = { namespaces: 0, writes: 0, conflicts: 0 };

  constructor(opts: UsageMeterOptions) {
    this.opts = opts;
    this.core = opts.kc.makeApiClient(CoreV1Api);
    this.now = opts.now ?? Date.now;
    opts.pods.on({
      delete: (pod) => {
        if (this.timer && pod.metadata?.uid) this.deleted.set(pod.metadata.uid, pod);
      },
    });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.opts.intervalMs);
    this.timer.unref();
    void this.flush();
  }

  /** Stops the timer and counts once more, so a leader stepping down leaves its watermarks current. */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** One pass over every namespace with agent pods; passes never overlap. */
  flush(): Promise<FlushResult> {
    const run = this.flushing.then(() => this.flushOnce());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async flushOnce(): Promise<FlushResult> {
    const byNamespace = new Map<string, V1Pod[]>();
    const add = (pod: V1Pod) => {
      const ns = pod.metadata?.namespace ?? '';
      const list = byNamespace.get(ns);
      if (list) list.push(pod);
      else byNamespace.set(ns, [pod]);
    };
    for (const pod of this.opts.pods.list()) add(pod);
    for (const pod of this.deleted.values()) add(pod);
    this.deleted.clear();
    const result: FlushResult = { namespaces: byNamespace.size, writes: 0, conflicts: 0 };
    const queue = [...byNamespace];
    // A few offices at a time: each is a read and a write, so the pass is bound by round trips.
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [namespace, pods] = next;
        try {
          const r = await this.record(namespace, pods);
          result.writes += r.writes;
          result.conflicts += r.conflicts;
        } catch (err) {
          // The watermarks did not move, so the next pass counts this stretch instead.
          this.opts.log.warn({ namespace, err: (err as Error).message }, 'recording usage failed');
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_OFFICES }, worker));
    this.totals.namespaces += result.namespaces;
    this.totals.writes += result.writes;
    this.totals.conflicts += result.conflicts;
    return result;
  }

  /** Reads the ledger, advances it, writes it back; on a conflict, again from the newer ledger. */
  private async record(namespace: string, pods: V1Pod[]): Promise<{ writes: number; conflicts: number }> {
    let conflicts = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.read(namespace);
      const { ledger, changed } = advanceLedger(readLedger(current), pods, {
        now: this.now(),
        forgetAfterSeconds: this.opts.forgetAfterSeconds ?? DEFAULT_FORGET_AFTER_SECONDS,
      });
      if (!changed) return { writes: 0, conflicts };
      const version = current?.metadata?.resourceVersion;
      const body = ledgerConfigMap(namespace, ledger, version);
      try {
        if (version) await this.core.replaceNamespacedConfigMap({ name: USAGE_CONFIGMAP, namespace, body });
        else await this.core.createNamespacedConfigMap({ namespace, body });
        return { writes: 1, conflicts };
      } catch (err) {
        // 409: another writer (an old leader finishing its last pass) got there first.
        if (code(err) !== 409) throw err;
        conflicts++;
      }
    }
    throw new Error(`usage ledger in ${namespace} kept changing under ${MAX_ATTEMPTS} attempts`);
  }

  private async read(namespace: string): Promise<V1ConfigMap | undefined> {
    try {
      return await this.core.readNamespacedConfigMap({ name: USAGE_CONFIGMAP, namespace });
    } catch (err) {
      if (code(err) === 404) return undefined;
      throw err;
    }
  }
}
