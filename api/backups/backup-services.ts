// Backups wiring: the blob store, cluster access, the three job types and the schedule sweep.
import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import type { JobHandler } from '../domain/jobs/job-runner.ts';
import type { JobsRepo } from '../domain/jobs/jobs-repo.ts';
import { type BlobStore, FilesystemBlobStore } from './blob-store.ts';
import { OfficeResources } from './office-resources.ts';
import { OfficeVolumes } from './office-volumes.ts';
import { DAY_MS, DEFAULT_SCHEDULE, initialParts, newSnapshotId, nextDailyRun } from './snapshot-model.ts';
import { type RunnerDeps, runRestore, runSnapshot } from './snapshot-runner.ts';
import type { RestoreRecord, SnapshotRecord, SnapshotsRepo } from './snapshots-repo.ts';

export const BACKUP_JOB_TYPES = ['backups.snapshot', 'backups.restore', 'backups.sweep'] as const;

export interface BackupOptions {
  snapshots: SnapshotsRepo;
  jobs: JobsRepo;
  /** The filesystem blob store's folder (COLONY_BACKUPS_DIR). */
  blobDir: string;
  kubeConfig: KubeConfig | undefined;
  officeDatabaseUrl: string | undefined;
  /** How often the schedule sweep runs; 0 turns it off. */
  sweepMs: number;
  /** Namespaced mode (COLONY_WATCH_NAMESPACE): the sweep looks at this one office namespace only. */
  watchNamespace?: string | undefined;
  /** Whether an office's plan includes scheduled snapshots (the Backups add-on); all, when absent. */
  schedulesAllowed?: (officeId: string) => Promise<boolean>;
  now: () => number;
  blobs?: BlobStore;
}

/** A snapshot whose job was never enqueued is picked up by the sweep after this long. */
const ORPHAN_AFTER_MS = 60_000;

export class BackupServices {
  readonly blobs: BlobStore;
  readonly resources: OfficeResources | undefined;
  readonly volumes: OfficeVolumes | undefined;
  readonly jobHandlers: Record<(typeof BACKUP_JOB_TYPES)[number], JobHandler<never>>;
  private readonly opts: BackupOptions;

  constructor(opts: BackupOptions) {
    this.opts = opts;
    this.blobs = opts.blobs ?? new FilesystemBlobStore(opts.blobDir);
    this.resources = opts.kubeConfig ? new OfficeResources(opts.kubeConfig) : undefined;
    this.volumes = opts.kubeConfig ? new OfficeVolumes(opts.kubeConfig) : undefined;
    const deps: RunnerDeps = {
      repo: opts.snapshots,
      blobs: this.blobs,
      resources: this.resources,
      volumes: this.volumes,
      officeDatabaseUrl: opts.officeDatabaseUrl,
      now: opts.now,
    };
    const snapshot: JobHandler<{ snapshotId: string }> = {
      description: 'Takes one office snapshot (resources, database, volumes); see docs/backups.md.',
      input: z.strictObject({ snapshotId: z.string() }),
      maxAttempts: 10,
      run: (input, { job, signal }) => runSnapshot({ ...deps, signal }, input.snapshotId, job),
    };
    const restore: JobHandler<{ restoreId: string }> = {
      description: 'Restores an office from a snapshot; see docs/backups.md.',
      input: z.strictObject({ restoreId: z.string() }),
      maxAttempts: 5,
      run: (input, { job, signal }) => runRestore({ ...deps, signal }, input.restoreId, job),
    };
    const sweep: JobHandler<{ slot: number }> = {
      description: 'Takes due scheduled snapshots, applies retention and re-enqueues itself.',
      input: z.strictObject({ slot: z.number().int() }),
      maxAttempts: 3,
      run: (input) => this.sweep(input.slot),
    };
    this.jobHandlers = {
      'backups.snapshot': snapshot as JobHandler<never>,
      'backups.restore': restore as JobHandler<never>,
      'backups.sweep': sweep as JobHandler<never>,
    };
  }

  /** Enqueues the snapshot's job (once: the key is the snapshot id) and records it on the snapshot. */
  async enqueueSnapshot(s: SnapshotRecord): Promise<void> {
    const { job } = await this.opts.jobs.create(
      {
        type: 'backups.snapshot',
        input: { snapshotId: s.id },
        maxAttempts: 10,
        idempotencyKey: `backups.snapshot:${s.id}`,
      },
      this.opts.now(),
    );
    await this.opts.snapshots.update(s.id, { jobId: job.id }, this.opts.now());
  }

  async enqueueRestore(r: RestoreRecord): Promise<void> {
    const { job } = await this.opts.jobs.create(
      {
        type: 'backups.restore',
        input: { restoreId: r.id },
        maxAttempts: 5,
        idempotencyKey: `backups.restore:${r.id}`,
      },
      this.opts.now(),
    );
    await this.opts.snapshots.updateRestore(r.id, { jobId: job.id }, this.opts.now());
  }

  /** Removes a finished snapshot's data everywhere, then tombstones it; undefined if it is still running. */
  async deleteSnapshot(s: SnapshotRecord): Promise<SnapshotRecord | undefined> {
    const namespace = await this.resources?.officeNamespace(s.officeId);
    if (namespace) {
      await this.resources?.forget(namespace, s.id);
      await this.volumes?.forget(namespace, s.id);
    }
    await this.blobs.remove(s.id);
    return this.opts.snapshots.markDeleted(s.id, this.opts.now());
  }

  /** Enqueues the sweep of the current slot; every replica may call it, one job results. */
  async startSweeps(): Promise<void> {
    if (this.opts.sweepMs <= 0 || !this.resources) return;
    await this.enqueueSweep(Math.floor(this.opts.now() / this.opts.sweepMs));
  }

  private async enqueueSweep(slot: number): Promise<void> {
    await this.opts.jobs.create(
      {
        type: 'backups.sweep',
        input: { slot },
        maxAttempts: 3,
        idempotencyKey: `backups.sweep:${slot}`,
        runAt: slot * this.opts.sweepMs,
      },
      this.opts.now(),
    );
  }

  /** One pass: schedules for new offices, due snapshots, retention, orphaned snapshots. */
  async sweep(slot: number): Promise<{ taken: string[]; expired: string[] }> {
    // The next pass is queued first, so a failing pass never ends the chain.
    if (this.opts.sweepMs > 0) await this.enqueueSweep(slot + 1);
    const { snapshots, now } = this.opts;
    const taken: string[] = [];
    for (const { officeId } of await this.sweptOffices()) {
      if (this.opts.schedulesAllowed && !(await this.opts.schedulesAllowed(officeId))) continue;
      const schedule = await snapshots.ensureSchedule({
        officeId,
        ...DEFAULT_SCHEDULE,
        nextRunAt: nextDailyRun(now(), DEFAULT_SCHEDULE.hourUtc),
        updatedAt: now(),
      });
      if (!schedule.enabled || schedule.nextRunAt > now()) continue;
      const id = await this.takeScheduled(
        officeId,
        schedule.nextRunAt,
        nextDailyRun(now(), schedule.hourUtc),
      );
      if (id) taken.push(id);
    }
    const expired = await this.applyRetention();
    for (const orphan of await snapshots.orphans(now() - ORPHAN_AFTER_MS)) await this.enqueueSnapshot(orphan);
    return { taken, expired };
  }

  /**
   * Deletes scheduled snapshots past their office's retention. Every recorded schedule counts, also
   * of offices whose namespace is gone, so their blobs do not outlive the retention either.
   */
  private async applyRetention(): Promise<string[]> {
    const { snapshots, now } = this.opts;
    const only = this.opts.watchNamespace
      ? new Set((await this.sweptOffices()).map((o) => o.officeId))
      : undefined;
    const expired: string[] = [];
    for (const schedule of await snapshots.schedules()) {
      if (only && !only.has(schedule.officeId)) continue;
      for (const old of await snapshots.expired(schedule.officeId, now() - schedule.retentionDays * DAY_MS)) {
        if (await this.deleteSnapshot(old)) expired.push(old.id);
      }
    }
    return expired;
  }

  private async sweptOffices(): Promise<{ officeId: string; namespace: string }[]> {
    const all = (await this.resources?.offices()) ?? [];
    const only = this.opts.watchNamespace;
    return only ? all.filter((o) => o.namespace === only) : all;
  }

  /** Claims the due run (one replica wins) and takes the snapshot; the key makes it once per slot. */
  private async takeScheduled(
    officeId: string,
    dueAt: number,
    nextRunAt: number,
  ): Promise<string | undefined> {
    const { snapshots, now } = this.opts;
    if (!(await snapshots.claimRun(officeId, dueAt, nextRunAt, now()))) return undefined;
    const { snapshot, created } = await snapshots.create(
      {
        id: newSnapshotId(),
        officeId,
        trigger: 'schedule',
        description: `Daily snapshot (${new Date(dueAt).toISOString()})`,
        parts: initialParts(),
        createdBy: 'schedule',
        idempotencyKey: `schedule:${officeId}:${dueAt}`,
      },
      now(),
    );
    if (created) await this.enqueueSnapshot(snapshot);
    return created ? snapshot.id : undefined;
  }
}
