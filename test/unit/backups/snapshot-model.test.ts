import { describe, expect, it } from 'vitest';
import {
  renderSnapshotSecret,
  restoredObjects,
  secretCopies,
} from '../../../api/backups/render-resources.ts';
import {
  decodeSnapshotCursor,
  encodeSnapshotCursor,
  initialParts,
  newSnapshotId,
  nextDailyRun,
  outcomeOf,
  snapshotSecretName,
} from '../../../api/backups/snapshot-model.ts';
import { isPermanent } from '../../../api/backups/snapshot-runner.ts';

describe('nextDailyRun', () => {
  const at = (iso: string) => Date.parse(iso);
  it.each([
    ['2026-11-23T01:00:00Z', 3, '2026-11-23T03:00:00.000Z'],
    ['2026-11-23T03:00:00Z', 3, '2026-11-24T03:00:00.000Z'],
    ['2026-11-23T22:59:59Z', 23, '2026-11-23T23:00:00.000Z'],
    ['2026-12-31T23:30:00Z', 0, '2027-01-01T00:00:00.000Z'],
  ])('after %s at hour %i is %s', (now, hour, next) => {
    expect(new Date(nextDailyRun(at(now), hour)).toISOString()).toBe(next);
  });
});

describe('snapshot cursors', () => {
  it('round-trip and refuse anything else', () => {
    const c = encodeSnapshotCursor({ createdAt: 1234, id: 'snap_x' });
    expect(decodeSnapshotCursor(c)).toEqual({ createdAt: 1234, id: 'snap_x' });
    for (const bad of ['abc', '!!', Buffer.from('{"v":2,"t":1,"id":"x"}').toString('base64url')])
      expect(decodeSnapshotCursor(bad)).toBeUndefined();
  });
});

describe('outcomeOf', () => {
  it('is running while a part is pending, failed when one failed, else completed', () => {
    const parts = initialParts();
    expect(outcomeOf(parts)).toBe('running');
    const done = {
      resources: { ...parts.resources, status: 'completed' as const },
      database: { ...parts.database, status: 'skipped' as const },
      volumes: { status: 'completed' as const, items: [] },
    };
    expect(outcomeOf(done)).toBe('completed');
    expect(outcomeOf({ ...done, database: { ...done.database, status: 'failed' } })).toBe('failed');
  });
});

describe('the per-snapshot Secret', () => {
  it('is a valid name and round-trips every captured Secret into restorable objects', () => {
    const id = newSnapshotId();
    expect(snapshotSecretName(id)).toMatch(/^colony-snapshot-[a-f0-9]{24}$/);
    const copies = [
      {
        name: 'openai-o1',
        type: 'Opaque',
        labels: { a: 'b' },
        data: { K: Buffer.from('v').toString('base64') },
      },
    ];
    const held = renderSnapshotSecret({
      name: snapshotSecretName(id),
      namespace: 'ns',
      officeId: 'o1',
      snapshotId: id,
      copies,
    });
    expect(held.immutable).toBe(true);
    expect(secretCopies(held)).toEqual(copies);
    const objects = restoredObjects({
      manifest: {
        version: 1,
        integrations: [{ name: 'openai', labels: {}, spec: { x: 1 } }],
        agentBindings: [],
        secretNames: ['openai-o1'],
      },
      held,
      namespace: 'ns',
      apiVersion: 'colony.ai/v1alpha1',
    });
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'Secret/openai-o1',
      'Integration/openai',
    ]);
  });
});

describe('isPermanent', () => {
  it.each([
    [{ code: '42501' }, true],
    [{ code: '42P01' }, true],
    [{ code: '28P01' }, true],
    [{ code: '3D000' }, true],
    [{ code: '57P01' }, false],
    [{ code: 'ECONNREFUSED' }, false],
    [{ code: 500 }, false],
    [new Error('x'), false],
  ])('classifies %j as permanent: %s', (err, permanent) => expect(isPermanent(err)).toBe(permanent));
});
