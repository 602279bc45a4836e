// Task templates and schedules are a plan feature (Pro and Team), on both databases: a Starter
// office gets none, a downgraded office keeps the schedules it has but gets no new ones, and an
// office a cluster admin created (no billing account) is outside plans.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { Entitlements } from '../../api/commerce/entitlements/entitlements.ts';
import { loadPriceList } from '../../api/domain/pricing/price-list.ts';
import { TaskScheduler } from '../../api/office/task-scheduler.ts';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import { loadRegistry } from '../../integrations/registry/load-registry.ts';
import { storageTargets } from '../support/storage-targets.ts';

const registry = loadRegistry(new URL('../../integrations', import.meta.url).pathname);
const NOW = Date.parse('2026-11-23T08:00:00Z');

const linear = (office: string) =>
  ({
    metadata: { name: 'linear', namespace: `office-${office}` },
    spec: { integrationId: 'linear', officeId: office, secretName: `linear-${office}` },
  }) as IntegrationObject;
const writer = (office: string, enabled = true) =>
  ({
    metadata: { name: 'writer-linear', namespace: `office-${office}` },
    spec: { agentName: 'writer', integrationId: 'linear', secretName: `linear-${office}`, enabled },
  }) as AgentBindingObject;

describe.each(storageTargets)('plan-gated task schedules on $name', (target) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let scheduler: TaskScheduler;

  beforeAll(async () => {
    const made = await target.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
    const entitlements = new Entitlements({
      storage,
      prices: loadPriceList(),
      baseUrl: 'http://colony.test',
    });
    scheduler = new TaskScheduler({
      tasks: storage.tasks,
      registry,
      templatesAllowed: (office) => entitlements.allows(office, 'task_templates'),
      log: pino({ level: 'silent' }),
      intervalMs: 1000,
      now: () => NOW,
    });
  });
  afterAll(async () => {
    await storage.close();
    await dispose();
  });

  /** The account's one subscription, on this plan. */
  const subscribe = (accountId: string, plan: string) =>
    storage.subscriptions.record({
      id: `sub_${accountId}`,
      accountId,
      checkoutSessionId: `cs_${accountId}_${plan}`,
      status: 'active',
      plan,
      interval: 'month',
      items: [{ itemId: `plan_${plan}_monthly`, quantity: 1, unitAmount: 100 }],
      trialEnd: null,
      processor: 'test',
      processorRef: `ref_${accountId}`,
      testMode: true,
      createdAt: NOW,
      updatedAt: NOW,
    });
  const sync = (office: string, enabled = true) =>
    scheduler.syncOffice(office, [linear(office)], [writer(office, enabled)]);
  const active = async (office: string) =>
    (await storage.tasks.schedules(office))
      .filter((s) => s.active)
      .map((s) => s.template)
      .sort();

  it('files no templates for a Starter office', async () => {
    await subscribe('acct_starter', 'starter');
    await storage.officeBilling.record('small', 'acct_starter', NOW);
    await sync('small');
    expect(await active('small')).toEqual([]);
    expect(await storage.tasks.list('small', { limit: 10 })).toEqual([]);
  });

  it('keeps a downgraded office’s schedules running but adds none', async () => {
    await subscribe('acct_pro', 'pro');
    await storage.officeBilling.record('busy', 'acct_pro', NOW);
    await sync('busy');
    expect(await active('busy')).toEqual(['sync-issues', 'triage']);
    await subscribe('acct_pro', 'starter');
    await sync('busy');
    expect(await active('busy')).toEqual(['sync-issues', 'triage']);
    await sync('busy', false);
    expect(await active('busy')).toEqual([]);
    await sync('busy');
    expect(await active('busy')).toEqual([]);
  });

  it('schedules an operator-managed office’s templates whatever any plan says', async () => {
    await sync('ops');
    expect(await active('ops')).toEqual(['sync-issues', 'triage']);
  });
});
