// Daily snapshots and retention: the schedule API, the sweep on a controlled clock (one office
// namespace only), two replicas sweeping at once, retention of scheduled snapshots, orphans.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupServices } from '../../api/backups/backup-services.ts';
import { DAY_MS, initialParts, newSnapshotId } from '../../api/backups/snapshot-model.ts';
import {
  BOOTSTRAP,
  bearer,
  createOffice,
  issueKeys,
  settled,
  startBackupsServer,
  type TestOffice,
} from '../support/backups-office.ts';
import { eventually } from '../support/eventually.ts';
import { kubeConfig } from '../support/kube.ts';
import type { TestServer } from '../support/server.ts';

let clock = Date.parse('2026-11-23T02:00:00Z');
const now = () => clock;
let s: TestServer;
let keys: Record<string, string> = {};
/** The real API key issued for a grant name. */
const tok = (name: string) => keys[name] ?? name;
let office: TestOffice;
const auth = bearer(BOOTSTRAP);

beforeAll(async () => {
  office = await createOffice('bks');
  s = await startBackupsServer({ COLONY_WATCH_NAMESPACE: office.namespace }, { now });
  keys = await issueKeys(s, {
    'reader-s': { scopes: ['backups:read'], offices: [office.id] },
    'admin-other': { scopes: ['backups:admin'], offices: ['elsewhere'] },
  });
});
afterAll(async () => {
  await s?.close();
  await office?.dispose();
});

const scheduleUrl = () => `/api/snapshots/schedules/${office.id}`;
const replica = () => new BackupServices(replicaOptions());

describe('GET and PUT /api/snapshots/schedules/{officeID}', () => {
  it('shows the default for an office never configured: daily at 03:00 UTC, kept 30 days', async () => {
    const res = await s.app.inject({ url: scheduleUrl(), headers: auth });
    expect(res.json()).toEqual({
      office: office.id,
      enabled: true,
      frequency: 'daily',
      hourUtc: 3,
      retentionDays: 30,
      nextRunAt: '2026-11-23T03:00:00.000Z',
    });
  });

  it.each([
    ['reader-s', 403, 'insufficient_scope'],
    ['admin-other', 403, 'forbidden'],
  ])('refuses %s with %i %s', async (token, status, code) => {
    const res = await s.app.inject({ url: scheduleUrl(), headers: bearer(tok(token)) });
    expect(res.statusCode).toBe(status);
    expect(res.json().code).toBe(code);
  });

  it('answers 404 for an office with no namespace', async () => {
    const res = await s.app.inject({
      method: 'PUT',
      url: '/api/snapshots/schedules/no-such-office',
      headers: auth,
      payload: { enabled: false },
    });
    expect(res.statusCode).toBe(404);
    expect(await s.app.colony.storage.snapshots.getSchedule('no-such-office')).toBeUndefined();
  });

  it.each([
    [{ enabled: true, hourUtc: 24 }, 'body.hourUtc'],
    [{ enabled: 'yes' }, 'body.enabled'],
    [{ enabled: true, retentionDays: 0 }, 'body.retentionDays'],
    [{ enabled: true, every: 'hour' }, 'body'],
  ])('refuses %j naming %s', async (payload, location) => {
    const res = await s.app.inject({ method: 'PUT', url: scheduleUrl(), headers: auth, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { location: string }) => e.location)).toContain(location);
  });
});

describe('the sweep', () => {
  let scheduledId: string;
  let manualId: string;

  it('records the default schedule when it first sees an office and takes nothing before the hour', async () => {
    expect(await s.app.colony.backups.sweep(0)).toEqual({ taken: [], expired: [] });
    expect(await s.app.colony.storage.snapshots.getSchedule(office.id)).toMatchObject({
      enabled: true,
      nextRunAt: Date.parse('2026-11-23T03:00:00Z'),
    });
  });

  it('takes one scheduled snapshot when two replicas sweep at the same moment', async () => {
    const manual = await s.app.inject({
      method: 'POST',
      url: '/api/snapshots',
      headers: auth,
      payload: { office: office.id },
    });
    manualId = manual.json().id;
    await settled(s, `/api/snapshots/${manualId}`);
    clock = Date.parse('2026-11-23T03:00:05Z');
    const results = await Promise.all([
      replica().sweep(1),
      replica().sweep(1),
      s.app.colony.backups.sweep(1),
    ]);
    const taken = results.flatMap((r) => r.taken);
    expect(taken).toHaveLength(1);
    scheduledId = taken[0] as string;
    const snap = await settled(s, `/api/snapshots/${scheduledId}`);
    expect(snap).toMatchObject({ status: 'completed', trigger: 'schedule' });
    expect(await s.app.colony.storage.snapshots.getSchedule(office.id)).toMatchObject({
      nextRunAt: Date.parse('2026-11-24T03:00:00Z'),
    });
    expect((await s.app.colony.backups.sweep(1)).taken).toEqual([]);
  });

  it('follows a changed schedule and stops when it is turned off', async () => {
    const put = await s.app.inject({
      method: 'PUT',
      url: scheduleUrl(),
      headers: auth,
      payload: { enabled: false, hourUtc: 5, retentionDays: 7 },
    });
    expect(put.json()).toMatchObject({ enabled: false, hourUtc: 5, retentionDays: 7, nextRunAt: null });
    clock += 2 * DAY_MS;
    expect((await s.app.colony.backups.sweep(2)).taken).toEqual([]);
  });

  it('deletes scheduled snapshots past retention, with their Secret, and keeps manual ones', async () => {
    const old = await settled(s, `/api/snapshots/${scheduledId}`);
    clock += 8 * DAY_MS;
    const { expired } = await s.app.colony.backups.sweep(3);
    expect(expired).toEqual([scheduledId]);
    expect((await s.app.inject({ url: `/api/snapshots/${scheduledId}`, headers: auth })).json().status).toBe(
      'deleted',
    );
    expect((await s.app.inject({ url: `/api/snapshots/${manualId}`, headers: auth })).json().status).toBe(
      'completed',
    );
    await expect(
      kubeConfig()
        .makeApiClient(CoreV1Api)
        .readNamespacedSecret({ name: old.parts.resources.secretName, namespace: office.namespace }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('applies retention to offices whose namespace is gone, removing their blobs', async () => {
    const repo = s.app.colony.storage.snapshots;
    await repo.putSchedule({
      officeId: 'gone-office',
      enabled: true,
      hourUtc: 3,
      retentionDays: 1,
      nextRunAt: clock,
      updatedAt: clock,
    });
    const { snapshot } = await repo.create(
      {
        id: newSnapshotId(),
        officeId: 'gone-office',
        trigger: 'schedule',
        description: null,
        parts: initialParts(),
        createdBy: 'schedule',
      },
      clock - 2 * DAY_MS,
    );
    await repo.update(snapshot.id, { status: 'completed', completedAt: clock }, clock);
    await s.app.colony.backups.blobs.put(`${snapshot.id}/resources.json`, ['{}']);
    // Not in namespaced mode: this sweep sees every office, and new ones are first due tomorrow.
    const { expired, taken } = await new BackupServices({
      ...replicaOptions(),
      watchNamespace: undefined,
    }).sweep(9);
    expect(taken).toEqual([]);
    expect(expired).toEqual([snapshot.id]);
    expect(await s.app.colony.backups.blobs.size(snapshot.id)).toBe(0);
  });

  it('enqueues a snapshot whose job was never enqueued (the process died in between)', async () => {
    const { snapshot } = await s.app.colony.storage.snapshots.create(
      {
        id: newSnapshotId(),
        officeId: office.id,
        trigger: 'manual',
        description: null,
        parts: initialParts(),
        createdBy: 't',
      },
      clock,
    );
    await s.app.colony.backups.sweep(4);
    expect((await s.app.colony.storage.snapshots.get(snapshot.id))?.jobId).toBeNull();
    clock += 61_000;
    await s.app.colony.backups.sweep(5);
    await eventually(
      async () => (await s.app.colony.storage.snapshots.get(snapshot.id))?.status === 'completed',
    );
  });

  it('queues one sweep per slot however many replicas start', async () => {
    const make = (ms: number) => new BackupServices({ ...replicaOptions(), sweepMs: ms });
    await Promise.all([make(60_000).startSweeps(), make(60_000).startSweeps()]);
    const slot = Math.floor(clock / 60_000);
    const { job, created } = await s.app.colony.storage.jobs.create(
      { type: 'backups.sweep', input: { slot }, maxAttempts: 3, idempotencyKey: `backups.sweep:${slot}` },
      clock,
    );
    expect(created).toBe(false);
    expect(job.runAt).toBe(slot * 60_000);
  });
});

function replicaOptions() {
  return {
    snapshots: s.app.colony.storage.snapshots,
    jobs: s.app.colony.storage.jobs,
    blobDir: s.app.colony.config.backups.dir,
    kubeConfig: kubeConfig(),
    officeDatabaseUrl: undefined,
    sweepMs: 0,
    watchNamespace: office.namespace,
    now,
  };
}
