// One informer over a changing set of namespaces: an Informer per member namespace, started when the
// namespace joins the set and stopped (its objects delivered as deletes) when it leaves, presented as
// one cache with the Informer's interface, so a controller that may not list cluster-wide keeps its
// handlers, lookups and indexes unchanged.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Informer, InformerHandlers } from './informer.ts';

/** What a controller uses of an informer: a plain Informer and a MultiNamespaceInformer both fit. */
export type SharedInformer<T extends KubernetesObject> = Pick<
  Informer<T>,
  'on' | 'get' | 'addIndex' | 'byIndex' | 'list' | 'size' | 'hasSynced' | 'waitForSync' | 'start' | 'stop'
>;

export interface MultiNamespaceInformerOptions<T extends KubernetesObject> {
  /** Informs about the member namespaces (e.g. Namespaces listed by a label selector). */
  namespaces: SharedInformer<KubernetesObject>;
  /** Builds the informer of one namespace; it must call `onError` for every failed list or watch. */
  create(namespace: string, onError: (err: unknown) => void): Informer<T>;
  onError?: (namespace: string, err: unknown) => void;
}

interface Member<T extends KubernetesObject> {
  informer: Informer<T>;
  /** Synced, or failed at least once: a namespace this one cannot list must not hold back readiness. */
  settled: boolean;
  /** Known from the first list of namespaces; only these count for sync, later ones join as they come. */
  initial: boolean;
  settle: Promise<void>;
}

export class MultiNamespaceInformer<T extends KubernetesObject> implements SharedInformer<T> {
  private readonly members = new Map<string, Member<T>>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly indexers = new Map<string, (obj: T) => string[]>();
  private readonly opts: MultiNamespaceInformerOptions<T>;
  private running = false;

  constructor(opts: MultiNamespaceInformerOptions<T>) {
    this.opts = opts;
    const join = (ns: KubernetesObject) => this.join(ns.metadata?.name);
    opts.namespaces.on({
      add: join,
      // A resync or label change of a member changes nothing; a relist may hand over one missed.
      update: join,
      delete: (ns) => this.leave(ns.metadata?.name),
    });
  }

  /** The namespaces informed about now. */
  namespaces(): string[] {
    return [...this.members.keys()];
  }

  on(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }

  get(key: string): T | undefined {
    const ns = key.slice(0, key.indexOf('/'));
    return this.members.get(ns)?.informer.get(key);
  }

  addIndex(name: string, fn: (obj: T) => string[]): void {
    this.indexers.set(name, fn);
    for (const m of this.members.values()) m.informer.addIndex(name, fn);
  }

  byIndex(name: string, value: string): T[] {
    if (!this.indexers.has(name)) throw new Error(`no index ${name} on this informer`);
    const hits: T[] = [];
    for (const m of this.members.values()) hits.push(...m.informer.byIndex(name, value));
    return hits;
  }

  list(): T[] {
    return [...this.members.values()].flatMap((m) => m.informer.list());
  }

  get size(): number {
    let n = 0;
    for (const m of this.members.values()) n += m.informer.size;
    return n;
  }

  /** Full lists across the member informers, as Informer.lists counts them. */
  get lists(): number {
    let n = 0;
    for (const m of this.members.values()) n += m.informer.lists;
    return n;
  }

  hasSynced(): boolean {
    return (
      this.opts.namespaces.hasSynced() && [...this.members.values()].every((m) => m.settled || !m.initial)
    );
  }

  /** Resolves once the namespaces are known and each of their informers has synced or failed. */
  async waitForSync(): Promise<void> {
    await this.opts.namespaces.waitForSync();
    await Promise.all([...this.members.values()].filter((m) => m.initial).map((m) => m.settle));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.opts.namespaces.start();
    for (const m of this.members.values()) m.informer.start();
  }

  stop(): void {
    this.running = false;
    this.opts.namespaces.stop();
    for (const m of this.members.values()) m.informer.stop();
  }

  private join(ns: string | undefined): void {
    if (!ns || this.members.has(ns)) return;
    let settled!: () => void;
    const settle = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const member: Member<T> = {
      settled: false,
      initial: !this.opts.namespaces.hasSynced(),
      settle,
      informer: this.opts.create(ns, (err) => {
        this.markSettled(member, settled);
        this.opts.onError?.(ns, err);
      }),
    };
    for (const [name, fn] of this.indexers) member.informer.addIndex(name, fn);
    // Handlers registered later still hear every member: forward through the current list.
    member.informer.on({
      add: (o) => {
        for (const h of this.handlers) h.add?.(o);
      },
      update: (o, old) => {
        for (const h of this.handlers) h.update?.(o, old);
      },
      delete: (o) => {
        for (const h of this.handlers) h.delete?.(o);
      },
    });
    void member.informer.waitForSync().then(() => this.markSettled(member, settled));
    this.members.set(ns, member);
    if (this.running) member.informer.start();
  }

  private markSettled(member: Member<T>, resolve: () => void): void {
    member.settled = true;
    resolve();
  }

  /** A namespace that left the set: what was cached from it is gone for the handlers too. */
  private leave(ns: string | undefined): void {
    const member = ns ? this.members.get(ns) : undefined;
    if (!ns || !member) return;
    member.informer.stop();
    this.members.delete(ns);
    for (const obj of member.informer.list()) for (const h of this.handlers) h.delete?.(obj);
  }
}
