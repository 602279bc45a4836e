// Task templates on both databases: once per enablement, cron runs filed exactly once even with two
// replicas racing, and a schedule that was missed while nothing ran fires once after a restart.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { TaskScheduler } from '../../api/office/task-scheduler.ts';
import type { StorageTarget } from '../../api/storage/open-database.ts';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { storageTargets } from '../support/storage-targets.ts';

const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
const log = pino({ level: 'silent' });
const office = 'acme';
const integration = {
  metadata: { name: 'linear', namespace: 'office-acme' },
  spec: { integrationId: 'linear', officeId: office, secretName: 'linear-acme' },
} as IntegrationObject;
const binding = (enabled: boolean) =>
  ({
    metadata: { name: 'writer-linear', namespace: 'office-acme' },
    spec: { agentName: 'writer', integrationId: 'linear', secretName: 'linear-acme', enabled },
  }) as AgentBindingObject;

// Monday 2026-11-23, 08:00 UTC: the weekday triage (09:00 UTC) is an hour away.
const MONDAY_8 = Date.parse('2026-11-23T08:00:00Z');
const HOUR = 3_600_000;

describe.each(storageTargets)('TaskScheduler on $name', (target) => {
  const opened: Storage[] = [];
  const disposers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    for (const d of disposers.splice(0)) await d();
  });

  async function setup() {
    const { target: t, dispose } = await target.create();
    disposers.push(dispose);
    return t;
  }
  async function scheduler(t: StorageTarget, clock: { now: number }) {
    const storage = await openStorage(t);
    opened.push(storage);
    return {
      storage,
      s: new TaskScheduler({ tasks: storage.tasks, registry, log, intervalMs: 1000, now: () => clock.now }),
    };
  }

  it('files the once-per-enable task on each enablement, and schedules the recurring one', async () => {
    const clock = { now: MONDAY_8 };
    const { storage, s } = await scheduler(await setup(), clock);
    await s.syncOffice(office, [integration], [binding(true)]);
    await s.syncOffice(office, [integration], [binding(true)]);
    let tasks = await storage.tasks.list(office, { limit: 10 });
    expect(tasks.map((t) => t.template)).toEqual(['sync-issues']);
    const [sync, triage] = [...(await storage.tasks.schedules(office))].sort((a, b) =>
      a.template.localeCompare(b.template),
    );
    expect(sync?.template).toBe('sync-issues');
    expect(triage).toMatchObject({
      template: 'triage',
      active: true,
      nextRunAt: Date.parse('2026-11-23T09:00:00Z'),
    });

    await s.syncOffice(office, [integration], [binding(false)]);
    expect((await storage.tasks.schedules(office)).every((x) => !x.active)).toBe(true);
    await s.syncOffice(office, [integration], [binding(true)]);
    tasks = await storage.tasks.list(office, { limit: 10 });
    expect(tasks.map((t) => t.template)).toEqual(['sync-issues', 'sync-issues']);
  });

  it('files each cron run once, even with two replicas racing for it', async () => {
    const clock = { now: MONDAY_8 };
    const t = await setup();
    const a = await scheduler(t, clock);
    const b = await scheduler(t, clock);
    await a.s.syncOffice(office, [integration], [binding(true)]);
    expect(await a.s.runDue()).toBe(0);
    clock.now = MONDAY_8 + HOUR + 1000;
    const filed = await Promise.all([a.s.runDue(), b.s.runDue(), a.s.runDue(), b.s.runDue()]);
    expect(filed.reduce((x, y) => x + y, 0)).toBe(1);
    const runs = await a.storage.tasks.list(office, { limit: 10 });
    expect(runs.filter((r) => r.template === 'triage').map((r) => r.scheduledFor)).toEqual([MONDAY_8 + HOUR]);
    const triage = (await a.storage.tasks.schedules(office)).find((x) => x.template === 'triage');
    expect(triage?.nextRunAt).toBe(Date.parse('2026-11-24T09:00:00Z'));
  });

  it('survives a restart: runs missed while down fire once, then the schedule resumes from now', async () => {
    const clock = { now: MONDAY_8 };
    const t = await setup();
    const first = await scheduler(t, clock);
    await first.s.syncOffice(office, [integration], [binding(true)]);
    await first.storage.close();
    opened.splice(opened.indexOf(first.storage), 1);
    clock.now = Date.parse('2026-11-26T12:00:00Z'); // Thursday noon: Mon, Tue, Wed and Thu 09:00 were missed
    const second = await scheduler(t, clock);
    expect(await second.s.runDue()).toBe(1);
    expect(await second.s.runDue()).toBe(0);
    const triage = (await second.storage.tasks.schedules(office)).find((x) => x.template === 'triage');
    expect(triage?.nextRunAt).toBe(Date.parse('2026-11-27T09:00:00Z'));
  });
});
