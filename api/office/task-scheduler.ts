// Turns task templates into office tasks: once each time an integration is enabled, and on cron
// schedules. State lives in storage, so it survives restarts; every creation is claimed by one
// statement, so two replicas never file the same run twice.
import type { FastifyBaseLogger } from 'fastify';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { OfficeCluster } from './office-cluster.ts';
import { desiredSchedules, nextRun } from './task-schedules.ts';
import { type DesiredSchedule, scheduleId, type TasksRepo } from './tasks-repo.ts';

export interface TaskSchedulerOptions {
  tasks: TasksRepo;
  registry: IntegrationRegistry;
  cluster?: OfficeCluster | undefined;
  /** COLONY_WATCH_NAMESPACE: the one namespace to read in namespaced mode (no cluster-wide list). */
  namespace?: string | undefined;
  /**
   * Whether an office's plan includes task templates and schedules; all, when absent. An office
   * without them keeps the schedules it already has but gets no new ones.
   */
  templatesAllowed?: (officeId: string) => Promise<boolean>;
  log: FastifyBaseLogger;
  intervalMs: number;
  now: () => number;
}

/** Cluster-wide re-syncs of enablement every this many ticks (toggles through the API sync at once). */
const SYNC_EVERY = 4;

export class TaskScheduler {
  private readonly opts: TaskSchedulerOptions;
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private running: Promise<void> | undefined;

  constructor(opts: TaskSchedulerOptions) {
    this.opts = opts;
  }

  /** Aligns one office's schedules with what is enabled there, filing once-per-enable tasks. */
  async syncOffice(
    officeId: string,
    integrations: IntegrationObject[],
    bindings: AgentBindingObject[],
  ): Promise<void> {
    const desired = desiredSchedules(this.opts.registry, integrations, bindings).filter(
      (d) => d.officeId === officeId,
    );
    await this.apply(officeId, desired);
  }

  private async apply(officeId: string, wanted: DesiredSchedule[]): Promise<void> {
    const { tasks, now } = this.opts;
    const desired = await this.allowed(officeId, wanted);
    const t = now();
    for (const d of desired) {
      const activated = await tasks.activate(d, d.cron ? nextRun(d.cron, d.timezone, t) : null, t);
      if (activated && !d.cron) {
        await tasks.create(
          {
            officeId,
            title: d.title,
            prompt: d.prompt,
            integrationId: d.integrationId,
            template: d.template,
            dedupeKey: `${activated.id}#${activated.activations}`,
          },
          t,
        );
      }
    }
    const kept = new Set(desired.map(scheduleId));
    for (const s of await tasks.schedules(officeId))
      if (s.active && !kept.has(s.id)) await tasks.deactivate(s.id, t);
  }

  /** Without the plan feature, only schedules already active stay: nothing new is filed. */
  private async allowed(officeId: string, wanted: DesiredSchedule[]): Promise<DesiredSchedule[]> {
    const check = this.opts.templatesAllowed;
    if (wanted.length === 0 || !check || (await check(officeId))) return wanted;
    const active = new Set(
      (await this.opts.tasks.schedules(officeId)).filter((s) => s.active).map((s) => s.id),
    );
    return wanted.filter((d) => active.has(scheduleId(d)));
  }

  /** Files every due run. A schedule missed while no replica ran fires once, then resumes from now. */
  async runDue(): Promise<number> {
    const { tasks, now } = this.opts;
    let filed = 0;
    for (const s of await tasks.due(now())) {
      if (!s.cron || s.nextRunAt === null) continue;
      const t = now();
      const next = nextRun(s.cron, s.timezone, Math.max(t, s.nextRunAt));
      if (!(await tasks.claim(s.id, s.nextRunAt, next, t))) continue;
      const created = await tasks.create(
        {
          officeId: s.officeId,
          title: s.title,
          prompt: s.prompt,
          integrationId: s.integrationId,
          template: s.template,
          scheduledFor: s.nextRunAt,
          dedupeKey: `${s.id}@${s.nextRunAt}`,
        },
        t,
      );
      if (created) filed++;
    }
    return filed;
  }

  /** Re-reads enablement from the cluster for every office (catches bindings made outside the API). */
  async syncAll(): Promise<void> {
    const cluster = this.opts.cluster;
    if (!cluster) return;
    const [integrations, bindings] = await Promise.all([
      cluster.listIntegrations(this.opts.namespace),
      cluster.listBindings(this.opts.namespace),
    ]);
    const offices = new Set(integrations.map((i) => i.spec.officeId));
    for (const s of await this.opts.tasks.activeOffices()) offices.add(s);
    const desired = desiredSchedules(this.opts.registry, integrations, bindings);
    for (const office of offices)
      await this.apply(
        office,
        desired.filter((d) => d.officeId === office),
      );
  }

  async tick(): Promise<void> {
    if (this.ticks++ % SYNC_EVERY === 0) await this.syncAll();
    await this.runDue();
  }

  start(): void {
    if (this.timer !== undefined) return;
    const loop = () => {
      this.running = this.tick()
        .catch((err) => this.opts.log.warn({ err: (err as Error).message }, 'task scheduler tick failed'))
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(loop, this.opts.intervalMs);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
