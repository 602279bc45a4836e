// Follows the benchmark's agent templates with a real watch (our informer), so the benchmark learns
// the moment a template gains or loses the injected variable without polling the API server.
import type { KubeConfig, V1StatefulSet } from '@kubernetes/client-node';
import { cachedWorkload } from '../../../controller/reconcilers/cached-fields.ts';
import { Informer } from '../../../controller/runtime/informer.ts';
import { listWatchSource } from '../../../controller/runtime/list-watch-source.ts';
import { BENCH_LABEL } from './fixture.ts';

const hasVar = (s: V1StatefulSet, name: string) =>
  (s.spec?.template.spec?.containers[0]?.env ?? []).some((e) => e.name === name);

export class TemplateWatch {
  private readonly informer: Informer<V1StatefulSet>;
  private readonly waiters = new Map<string, { want: boolean; resolve: () => void }>();
  private injected = 0;
  private readonly state = new Map<string, boolean>();
  private allWaiter: { count: number; resolve: () => void } | undefined;
  private readonly variable: string;

  constructor(kc: KubeConfig, runId: string, variable: string) {
    this.variable = variable;
    this.informer = new Informer<V1StatefulSet>(
      listWatchSource<V1StatefulSet>(kc, {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        path: '/apis/apps/v1/statefulsets',
        labelSelector: `${BENCH_LABEL}=${runId}`,
      }),
      // Only the env is read: at 10,000 agents whole objects would weigh on the bench process.
      { resyncMs: 0, transform: cachedWorkload },
    );
    const seen = (s: V1StatefulSet) => this.observe(s);
    this.informer.on({ add: seen, update: seen, delete: () => {} });
  }

  private observe(s: V1StatefulSet): void {
    const key = `${s.metadata?.namespace}/${s.metadata?.name}`;
    const now = hasVar(s, this.variable);
    const before = this.state.get(key) ?? false;
    this.state.set(key, now);
    if (now !== before) this.injected += now ? 1 : -1;
    const waiter = this.waiters.get(key);
    if (waiter && waiter.want === now) {
      this.waiters.delete(key);
      waiter.resolve();
    }
    if (this.allWaiter && this.injected >= this.allWaiter.count) this.allWaiter.resolve();
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync();
  }

  stop(): void {
    this.informer.stop();
  }

  get injectedCount(): number {
    return this.injected;
  }

  /** Resolves when `count` templates carry the variable. */
  allInjected(count: number): Promise<void> {
    if (this.injected >= count) return Promise.resolve();
    return new Promise((resolve) => {
      this.allWaiter = { count, resolve };
    });
  }

  /** Resolves when the template of namespace/name has (or lacks) the variable. */
  until(namespace: string, name: string, injected: boolean): Promise<void> {
    const key = `${namespace}/${name}`;
    if ((this.state.get(key) ?? false) === injected) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(key, { want: injected, resolve }));
  }
}
