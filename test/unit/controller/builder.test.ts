// wire: how a controller table becomes informer handlers, whatever the kinds in it.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type ControllerSpec, wire } from '../../../controller/runtime/builder.ts';
import { changed, labelPresent, updatesOnly } from '../../../controller/runtime/predicates.ts';
import { FakeInformer } from './fake-informer.ts';

const obj = (name: string, extra: Record<string, unknown> = {}): KubernetesObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: '1', ...extra },
});

function wired(spec: (source: FakeInformer<KubernetesObject>) => Omit<ControllerSpec, 'name' | 'kind'>) {
  const source = new FakeInformer<KubernetesObject>();
  const queued: string[] = [];
  wire({ name: 'test', kind: 'Test', ...spec(source) }, (key, low) =>
    queued.push(low ? `${key} (later)` : key),
  );
  return { source, queued };
}

describe('wire', () => {
  it('enqueues a `for` object as itself on add, update and delete', () => {
    const { source, queued } = wired((s) => ({ for: { source: s } }));
    source.add(obj('a'));
    source.update(obj('a', { resourceVersion: '2' }));
    source.delete(obj('a'));
    expect(queued).toEqual(['ns/a', 'ns/a', 'ns/a']);
  });

  it('enqueues an owned object as its owner of the named kind, or as what the owner maps to', () => {
    const owner = { apiVersion: 'v1', kind: 'Parent', name: 'p', uid: 'u' };
    const other = { apiVersion: 'v1', kind: 'Other', name: 'o', uid: 'v' };
    const plain = wired((s) => ({ owns: [{ source: s, ownerKind: 'Parent' }] }));
    plain.source.add(obj('child', { ownerReferences: [other, owner] }));
    plain.source.add(obj('orphan', { ownerReferences: [other] }));
    expect(plain.queued).toEqual(['ns/p']);
    const mapped = wired((s) => ({
      owns: [{ source: s, ownerKind: 'Parent', map: (o) => [{ ...o, name: `${o.name}-agent` }] }],
    }));
    mapped.source.add(obj('child', { ownerReferences: [owner] }));
    expect(mapped.queued).toEqual(['ns/p-agent']);
  });

  it('lets an event through only when every predicate does, and drops requests without a name', () => {
    const { source, queued } = wired((s) => ({
      watches: [
        {
          source: s,
          map: (o) => [{ namespace: 'ns', name: o.metadata?.labels?.team ?? '' }],
          predicates: [labelPresent('team'), changed((o: KubernetesObject) => o.metadata?.labels)],
        },
      ],
    }));
    source.add(obj('unlabelled'));
    source.add(obj('x', { labels: { team: 'red' } }));
    source.update(obj('x', { labels: { team: 'red' }, resourceVersion: '2' }));
    source.update(obj('x', { labels: { team: 'blue' }, resourceVersion: '3' }));
    expect(queued).toEqual(['ns/red', 'ns/blue']);
  });

  it('maps the old object too when asked, and never filters a resync, which waits behind changes', () => {
    const { source, queued } = wired((s) => ({
      watches: [
        {
          source: s,
          map: (o) => [{ namespace: 'ns', name: o.metadata?.labels?.team ?? '' }],
          mapOld: true,
          predicates: [updatesOnly],
        },
      ],
    }));
    source.add(obj('x', { labels: { team: 'red' } }));
    source.update(obj('x', { labels: { team: 'blue' }, resourceVersion: '2' }));
    source.resync('ns/x');
    source.delete(obj('x', { labels: { team: 'blue' } }));
    expect(queued).toEqual(['ns/blue', 'ns/red', 'ns/blue (later)', 'ns/blue (later)']);
  });
});
