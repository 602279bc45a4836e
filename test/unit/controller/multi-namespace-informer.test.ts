// MultiNamespaceInformer against scripted sources: one informer per member namespace, started and
// stopped as namespaces come and go, seen by handlers, lookups and indexes as one cache.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { Informer, type ListWatchSource, type WatchPhase } from '../../../controller/runtime/informer.ts';
import { MultiNamespaceInformer } from '../../../controller/runtime/multi-namespace-informer.ts';
import { eventually } from '../../support/eventually.ts';

type Emit = (phase: WatchPhase, o: KubernetesObject) => void;

/** A source listing `items` (or refusing with 403), whose watch the test drives through `emit`. */
function stream(items: KubernetesObject[], forbidden = false) {
  let emit: Emit | undefined;
  const state = { aborted: false, lists: 0 };
  const source: ListWatchSource<KubernetesObject> = {
    async list() {
      state.lists++;
      if (forbidden) throw Object.assign(new Error('forbidden'), { code: 403 });
      return { items, resourceVersion: '1' };
    },
    async watch(_rv, onEvent) {
      emit = onEvent;
      return {
        abort: () => {
          state.aborted = true;
        },
      };
    },
  };
  return {
    source,
    state,
    emit: async (phase: WatchPhase, o: KubernetesObject) => {
      await eventually(async () => emit !== undefined);
      emit?.(phase, o);
    },
  };
}

const ns = (name: string): KubernetesObject => ({ metadata: { name, resourceVersion: name } });
const obj = (namespace: string, name: string, agent: string): KubernetesObject => ({
  metadata: { namespace, name, resourceVersion: `${namespace}-${name}`, labels: { agent } },
});

function setup(initial: string[], objects: Record<string, KubernetesObject[]>, forbidden: string[] = []) {
  const namespaces = stream(initial.map(ns));
  const members: Record<string, ReturnType<typeof stream>> = {};
  const errors: string[] = [];
  const inf = new MultiNamespaceInformer<KubernetesObject>({
    namespaces: new Informer(namespaces.source),
    create: (namespace, onError) => {
      const member = stream(objects[namespace] ?? [], forbidden.includes(namespace));
      members[namespace] = member;
      return new Informer(member.source, { minBackoffMs: 10_000, onError });
    },
    onError: (namespace, err) => errors.push(`${namespace}: ${(err as Error).message}`),
  });
  inf.addIndex('agent', (o) => [`${o.metadata?.namespace}/${o.metadata?.labels?.agent}`]);
  const seen: string[] = [];
  inf.on({
    add: (o) => seen.push(`add ${o.metadata?.namespace}/${o.metadata?.name}`),
    delete: (o) => seen.push(`delete ${o.metadata?.namespace}/${o.metadata?.name}`),
  });
  return { inf, namespaces, members, errors, seen };
}

describe('MultiNamespaceInformer', () => {
  it('lists each member namespace on its own and answers lookups and indexes across them', async () => {
    const { inf, seen } = setup(['office-a', 'office-b'], {
      'office-a': [obj('office-a', 'x', 'ann')],
      'office-b': [obj('office-b', 'y', 'bob')],
    });
    inf.start();
    await inf.waitForSync();
    expect(inf.hasSynced()).toBe(true);
    expect(inf.namespaces().sort()).toEqual(['office-a', 'office-b']);
    expect(inf.size).toBe(2);
    expect(inf.get('office-b/y')?.metadata?.labels?.agent).toBe('bob');
    expect(inf.get('office-c/y')).toBeUndefined();
    expect(inf.byIndex('agent', 'office-a/ann').map((o) => o.metadata?.name)).toEqual(['x']);
    expect(() => inf.byIndex('nope', 'x')).toThrow(/no index nope/);
    expect(seen.sort()).toEqual(['add office-a/x', 'add office-b/y']);
    inf.stop();
  });

  it('starts an informer for a namespace that joins later, with the handlers and indexes already set', async () => {
    const { inf, namespaces, members, seen } = setup([], { 'office-new': [obj('office-new', 'z', 'cy')] });
    inf.start();
    await inf.waitForSync();
    expect(inf.size).toBe(0);
    await namespaces.emit('ADDED', ns('office-new'));
    // A namespace that comes later never makes a synced informer unsynced (readiness would flap).
    expect(inf.hasSynced()).toBe(true);
    await eventually(async () => inf.size === 1);
    expect(members['office-new']?.state.lists).toBe(1);
    expect(inf.byIndex('agent', 'office-new/cy')).toHaveLength(1);
    expect(seen).toEqual(['add office-new/z']);
    inf.stop();
  });

  it('stops the informer of a namespace that leaves and delivers its objects as deletes', async () => {
    const { inf, namespaces, members, seen } = setup(['office-a'], {
      'office-a': [obj('office-a', 'x', 'ann')],
    });
    inf.start();
    await inf.waitForSync();
    await namespaces.emit('DELETED', ns('office-a'));
    await eventually(async () => inf.size === 0);
    expect(members['office-a']?.state.aborted).toBe(true);
    expect(inf.get('office-a/x')).toBeUndefined();
    expect(inf.byIndex('agent', 'office-a/ann')).toEqual([]);
    expect(seen).toEqual(['add office-a/x', 'delete office-a/x']);
    inf.stop();
  });

  it('does not let a namespace it may not list hold back sync, and reports it by namespace', async () => {
    const { inf, errors } = setup(
      ['office-ok', 'office-forbidden'],
      {
        'office-ok': [obj('office-ok', 'x', 'ann')],
      },
      ['office-forbidden'],
    );
    inf.start();
    await inf.waitForSync();
    expect(inf.hasSynced()).toBe(true);
    expect(inf.size).toBe(1);
    expect(errors).toEqual(['office-forbidden: forbidden']);
    inf.stop();
  });

  it('is not synced before the namespaces are known', async () => {
    const { inf } = setup(['office-a'], {});
    expect(inf.hasSynced()).toBe(false);
    inf.start();
    await inf.waitForSync();
    expect(inf.hasSynced()).toBe(true);
    inf.stop();
  });
});
