// An in-memory SharedInformer for unit tests: the test adds, updates, deletes and resyncs objects
// by hand, and the handlers hear exactly what a real informer would tell them.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { InformerHandlers } from '../../../controller/runtime/informer.ts';
import { keyOf } from '../../../controller/runtime/informer.ts';
import type { SharedInformer } from '../../../controller/runtime/multi-namespace-informer.ts';

export class FakeInformer<T extends KubernetesObject> implements SharedInformer<T> {
  private readonly cache = new Map<string, T>();
  private readonly indexers = new Map<string, (obj: T) => string[]>();
  private readonly handlers: InformerHandlers<T>[] = [];

  on(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }
  get(key: string): T | undefined {
    return this.cache.get(key);
  }
  addIndex(name: string, fn: (obj: T) => string[]): void {
    this.indexers.set(name, fn);
  }
  byIndex(name: string, value: string): T[] {
    const fn = this.indexers.get(name);
    if (!fn) throw new Error(`no index ${name} on this informer`);
    return this.list().filter((o) => fn(o).includes(value));
  }
  list(): T[] {
    return [...this.cache.values()];
  }
  get size(): number {
    return this.cache.size;
  }
  hasSynced(): boolean {
    return true;
  }
  waitForSync(): Promise<void> {
    return Promise.resolve();
  }
  start(): void {}
  stop(): void {}

  /** Caches an object without telling anyone (the state before the event under test). */
  seed(obj: T): void {
    this.cache.set(keyOf(obj), obj);
  }
  add(obj: T): void {
    this.cache.set(keyOf(obj), obj);
    for (const h of this.handlers) h.add?.(obj);
  }
  /** Replaces the cached object of the same key and reports the change. */
  update(obj: T): void {
    const old = this.cache.get(keyOf(obj));
    if (!old) throw new Error(`nothing cached under ${keyOf(obj)}`);
    this.cache.set(keyOf(obj), obj);
    for (const h of this.handlers) h.update?.(obj, old);
  }
  delete(obj: T): void {
    this.cache.delete(keyOf(obj));
    for (const h of this.handlers) h.delete?.(obj);
  }
  /** A periodic resync: the cached object handed over as both old and new. */
  resync(key: string): void {
    const obj = this.cache.get(key);
    if (!obj) throw new Error(`nothing cached under ${key}`);
    for (const h of this.handlers) h.update?.(obj, obj);
  }
}
