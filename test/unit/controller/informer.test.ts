// Informer against a scripted source: relist on 410, restart with backoff, deletes found by relisting.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { Informer, type ListWatchSource, type WatchPhase } from '../../../controller/runtime/informer.ts';
import { eventually } from '../../support/eventually.ts';

const obj = (name: string, rv: string): KubernetesObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});

type Emit = (phase: WatchPhase, o: KubernetesObject & { code?: number }) => void;

/** A source whose list answers and watch sessions the test scripts one by one. */
function scripted(
  lists: KubernetesObject[][],
  sessions: ((emit: Emit, done: (err: unknown) => void) => void)[],
) {
  const watchedFrom: string[] = [];
  let l = 0;
  let w = 0;
  const source: ListWatchSource<KubernetesObject> = {
    async list() {
      const items = lists[Math.min(l, lists.length - 1)] ?? [];
      l++;
      return { items, resourceVersion: `list-${l}` };
    },
    async watch(rv, onEvent, done) {
      watchedFrom.push(rv);
      const session = sessions[w++];
      if (session) setTimeout(() => session(onEvent, done), 1);
      return { abort: () => {} };
    },
  };
  return { source, watchedFrom };
}

describe('Informer', () => {
  it('loads the list, reports sync, then follows watch events', async () => {
    const { source, watchedFrom } = scripted(
      [[obj('a', '1')]],
      [
        (emit) => {
          emit('ADDED', obj('b', '2'));
          emit('MODIFIED', obj('a', '3'));
          emit('DELETED', obj('b', '4'));
        },
      ],
    );
    const seen: string[] = [];
    const inf = new Informer(source);
    inf.on({
      add: (o) => seen.push(`add ${o.metadata?.name}`),
      update: (o) => seen.push(`update ${o.metadata?.name}`),
      delete: (o) => seen.push(`delete ${o.metadata?.name}`),
    });
    inf.start();
    await inf.waitForSync();
    expect(inf.hasSynced()).toBe(true);
    await eventually(async () => seen.length === 4);
    expect(seen).toEqual(['add a', 'add b', 'update a', 'delete b']);
    expect(watchedFrom[0]).toBe('list-1');
    expect(inf.list().map((o) => o.metadata?.resourceVersion)).toEqual(['3']);
    inf.stop();
  });

  it('relists on 410 Gone and reports what vanished meanwhile as deleted', async () => {
    const { source } = scripted(
      [[obj('a', '1'), obj('b', '1')], [obj('a', '5')]],
      [
        (emit, done) => {
          emit('ERROR', { metadata: {}, code: 410 });
          done(null);
        },
      ],
    );
    const deleted: string[] = [];
    const inf = new Informer(source);
    inf.on({ delete: (o) => deleted.push(o.metadata?.name ?? '') });
    inf.start();
    await eventually(async () => inf.lists === 2);
    expect(deleted).toEqual(['b']);
    expect(inf.get('ns/a')?.metadata?.resourceVersion).toBe('5');
    inf.stop();
  });

  it('restarts a failed watch with backoff from the last resourceVersion seen', async () => {
    const errors: unknown[] = [];
    const { source, watchedFrom } = scripted(
      [[obj('a', '1')]],
      [
        (emit, done) => {
          emit('MODIFIED', obj('a', '7'));
          done(new Error('connection reset'));
        },
        (_emit, done) => done(new Error('still down')),
        () => {},
      ],
    );
    const inf = new Informer(source, { minBackoffMs: 10, onError: (e) => errors.push(e) });
    inf.start();
    await eventually(async () => watchedFrom.length === 3);
    expect(watchedFrom).toEqual(['list-1', '7', '7']);
    expect(errors).toHaveLength(2);
    expect(inf.lists).toBe(1);
    inf.stop();
  });
});

describe('Informer indexes', () => {
  const labelled = (name: string, rv: string, team: string): KubernetesObject => ({
    metadata: { name, namespace: 'ns', resourceVersion: rv, labels: { team } },
  });

  it('finds objects by index value and keeps the index in step with updates, deletes and relists', async () => {
    const { source } = scripted(
      [[labelled('a', '1', 'red'), labelled('b', '2', 'red')], [labelled('a', '5', 'blue')]],
      [
        (emit, done) => {
          emit('MODIFIED', labelled('b', '3', 'blue'));
          emit('ADDED', labelled('c', '4', 'red'));
          // A 410 makes the informer relist: b and c disappear, a moves to blue.
          emit('ERROR', { code: 410, metadata: {} });
          done(undefined);
        },
      ],
    );
    const inf = new Informer(source);
    inf.addIndex('team', (o) => [o.metadata?.labels?.team ?? '']);
    const names = (team: string) =>
      inf
        .byIndex('team', team)
        .map((o) => o.metadata?.name)
        .sort();
    inf.start();
    await inf.waitForSync();
    await eventually(async () => inf.lists === 2);
    inf.stop();
    expect(names('blue')).toEqual(['a']);
    expect(names('red')).toEqual([]);
    expect(() => inf.byIndex('nope', 'x')).toThrow(/no index nope/);
  });
});

describe('Informer transform', () => {
  it('shapes listed and watched objects before they are cached and before handlers see them', async () => {
    const big = (name: string, rv: string): KubernetesObject & { spec?: unknown } => ({
      metadata: { name, namespace: 'ns', resourceVersion: rv, managedFields: [{ manager: 'kubectl' }] },
      spec: { large: 'x'.repeat(100) },
    });
    const { source } = scripted(
      [[big('a', '1')]],
      [
        (emit) => {
          emit('ADDED', big('b', '2'));
          emit('DELETED', big('a', '3'));
        },
      ],
    );
    const handed: KubernetesObject[] = [];
    const inf = new Informer(source, {
      transform: (o) => ({
        metadata: { name: o.metadata?.name, namespace: 'ns', resourceVersion: o.metadata?.resourceVersion },
      }),
    });
    inf.on({ add: (o) => handed.push(o), delete: (o) => handed.push(o) });
    inf.start();
    await eventually(async () => handed.length === 3);
    inf.stop();
    for (const o of [...handed, ...inf.list()]) {
      expect(o).not.toHaveProperty('spec');
      expect(o.metadata).not.toHaveProperty('managedFields');
    }
    expect(inf.list().map((o) => o.metadata?.name)).toEqual(['b']);
  });
});
