// A shared informer: lists a resource, keeps a cache in step through a watch, and tells handlers
// about adds, updates and deletes. Watches restart with backoff; a 410 Gone relists.
import type { KubernetesObject } from '@kubernetes/client-node';

export type WatchPhase = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The two calls an informer needs from the API server; tests may supply their own. */
export interface ListWatchSource<T extends KubernetesObject> {
  list(continueToken?: string): Promise<{ items: T[]; resourceVersion: string; continueToken?: string }>;
  /** Streams events from `resourceVersion` until the server closes; `done` fires once, with the reason. */
  watch(
    resourceVersion: string,
    onEvent: (phase: WatchPhase, obj: T & { code?: number }) => void,
    done: (err: unknown) => void,
  ): Promise<{ abort(): void }>;
}

export interface InformerHandlers<T> {
  add?(obj: T): void;
  update?(obj: T, old: T): void;
  delete?(obj: T): void;
}

export interface InformerOptions<T = KubernetesObject> {
  /** Re-delivers every cached object as an update this often (0 = never), as a safety net. */
  resyncMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  onError?: (err: unknown) => void;
  /**
   * Shapes each listed or watched object before it is cached and before handlers see it, as
   * client-go's SetTransform does: what nobody reads (managedFields, most of a Pod) is dropped at
   * the door instead of held for the life of the process. Must be pure; it may return a new object.
   */
  transform?: (obj: T) => T;
}

export const keyOf = (o: KubernetesObject): string =>
  o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata?.name ?? '');

class GoneError extends Error {}

export class Informer<T extends KubernetesObject> {
  private readonly cache = new Map<string, T>();
  /** Secondary indexes: index name -> value -> cache key -> object (client-go's Indexer). */
  private readonly indexers = new Map<string, (obj: T) => string[]>();
  private readonly indices = new Map<string, Map<string, Map<string, T>>>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly opts: Required<Omit<InformerOptions<T>, 'onError' | 'transform'>> &
    Pick<InformerOptions<T>, 'onError'>;
  private readonly transform: (obj: T) => T;
  private resourceVersion = '';
  private synced = false;
  private stopped = true;
  private failures = 0;
  private current: { abort(): void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private syncWaiters: (() => void)[] = [];
  /** Counts full lists, so tests and metrics can see relists after a 410. */
  lists = 0;

  private readonly source: ListWatchSource<T>;

  constructor(source: ListWatchSource<T>, opts: InformerOptions<T> = {}) {
    this.source = source;
    const { transform, ...rest } = opts;
    this.opts = { resyncMs: 0, minBackoffMs: 200, maxBackoffMs: 30_000, ...rest };
    this.transform = transform ?? ((obj) => obj);
  }

  on(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  /** Maintains an index of the cache by the values `fn` returns; add indexes before start(). */
  addIndex(name: string, fn: (obj: T) => string[]): void {
    this.indexers.set(name, fn);
    const index = new Map<string, Map<string, T>>();
    this.indices.set(name, index);
    for (const [key, obj] of this.cache) this.indexOne(index, fn, key, obj);
  }

  /** Cached objects whose index `name` holds `value`, without scanning the cache. */
  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`no index ${name} on this informer`);
    const hits = index.get(value);
    return hits ? [...hits.values()] : [];
  }

  private indexOne(index: Map<string, Map<string, T>>, fn: (obj: T) => string[], key: string, obj: T) {
    for (const value of fn(obj)) {
      let hits = index.get(value);
      if (!hits) {
        hits = new Map();
        index.set(value, hits);
      }
      hits.set(key, obj);
    }
  }

  private store(key: string, obj: T): void {
    this.unstore(key);
    this.cache.set(key, obj);
    for (const [name, fn] of this.indexers) this.indexOne(this.indices.get(name) ?? new Map(), fn, key, obj);
  }

  private unstore(key: string): void {
    const old = this.cache.get(key);
    if (!old) return;
    this.cache.delete(key);
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name);
      for (const value of fn(old)) {
        const hits = index?.get(value);
        hits?.delete(key);
        if (hits?.size === 0) index?.delete(value);
      }
    }
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  get size(): number {
    return this.cache.size;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has been loaded into the cache. */
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.run(true);
    if (this.opts.resyncMs > 0) {
      this.resyncTimer = setInterval(() => this.resync(), this.opts.resyncMs);
      this.resyncTimer.unref();
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.resyncTimer);
    this.current?.abort();
  }

  private async run(relist: boolean): Promise<void> {
    if (this.stopped) return;
    let listed = !relist;
    try {
      if (relist) await this.relist();
      listed = true;
      await this.watchOnce();
      this.failures = 0;
      this.schedule(false, 0);
    } catch (err) {
      if (this.stopped) return;
      if (err instanceof GoneError) {
        this.schedule(true, 0);
        return;
      }
      this.opts.onError?.(err);
      this.failures++;
      const delay = Math.min(this.opts.maxBackoffMs, this.opts.minBackoffMs * 2 ** (this.failures - 1));
      // A failed list leaves nothing to resume from; a failed watch resumes where it stopped.
      this.schedule(!listed, delay);
    }
  }

  private schedule(relist: boolean, ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(relist), ms);
  }

  /** Replaces the cache with a fresh list, telling handlers only what changed. */
  private async relist(): Promise<void> {
    // Each page is shaped as it arrives, so a relist never holds every raw page at once.
    const items: T[] = [];
    let page = await this.source.list();
    for (const o of page.items) items.push(this.transform(o));
    while (page.continueToken) {
      page = await this.source.list(page.continueToken);
      for (const o of page.items) items.push(this.transform(o));
    }
    this.lists++;
    const fresh = new Map(items.map((o) => [keyOf(o), o]));
    for (const [key, old] of this.cache) {
      if (!fresh.has(key)) {
        this.unstore(key);
        for (const h of this.handlers) h.delete?.(old);
      }
    }
    for (const [key, obj] of fresh) this.apply('ADDED', key, obj);
    this.resourceVersion = page.resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private watchOnce(): Promise<void> {
    return new Promise((resolve, reject) => {
      let gone = false;
      this.source
        .watch(
          this.resourceVersion,
          (phase, obj) => {
            if (phase === 'ERROR') {
              if (obj.code === 410) gone = true;
              return;
            }
            const rv = obj.metadata?.resourceVersion;
            if (rv) this.resourceVersion = rv;
            if (phase !== 'BOOKMARK') this.apply(phase, keyOf(obj), this.transform(obj));
          },
          (err) => {
            this.current = undefined;
            if (gone) reject(new GoneError('resourceVersion too old'));
            else if (err && !this.stopped && !isTimeout(err)) reject(err);
            else resolve();
          },
        )
        .then((handle) => {
          this.current = handle;
        }, reject);
    });
  }

  private apply(phase: WatchPhase, key: string, obj: T): void {
    const old = this.cache.get(key);
    if (phase === 'DELETED') {
      this.unstore(key);
      for (const h of this.handlers) h.delete?.(obj);
      return;
    }
    if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return;
    this.store(key, obj);
    for (const h of this.handlers) {
      if (old) h.update?.(obj, old);
      else h.add?.(obj);
    }
  }

  private resync(): void {
    for (const obj of this.cache.values()) for (const h of this.handlers) h.update?.(obj, obj);
  }
}

// The client closes an idle watch after its own timeout; that is a normal end, not an error.
function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}
