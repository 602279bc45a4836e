// zod schemas of the backups API (/api/snapshots): requests, responses and the per-part report.
import { z } from 'zod';
import { restoreStatuses, snapshotStatuses } from './snapshots-repo.ts';

export const officeId = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'an office id is a DNS label (lowercase letters, digits, -)');

const snapshotId = z
  .string()
  .max(29)
  .regex(/^snap_[a-f0-9]{24}$/, 'a snapshot id looks like snap_<24 hex digits>');
const restoreId = z
  .string()
  .max(28)
  .regex(/^rst_[a-f0-9]{24}$/, 'a restore id looks like rst_<24 hex digits>');

/** How each part of a snapshot went; `skipped` always carries a reason in `detail`. */
export const partStatuses = ['pending', 'completed', 'skipped', 'failed'] as const;
const partStatus = z.enum(partStatuses);

export const resourcesPartSchema = z.object({
  status: partStatus,
  integrations: z.number().int(),
  agentBindings: z.number().int(),
  secrets: z.number().int().describe('Integration Secrets captured (their values stay in Kubernetes)'),
  secretName: z.string().nullable().describe('The per-snapshot Secret in the office namespace'),
  detail: z.string().optional(),
});

export const databasePartSchema = z.object({
  status: partStatus,
  database: z.string().nullable(),
  tables: z.number().int(),
  rows: z.number().int(),
  bytes: z.number().int(),
  detail: z.string().optional(),
});

export const volumeItemStatuses = ['pending', 'ready', 'skipped', 'failed'] as const;
export const volumeItemSchema = z.object({
  pvc: z.string(),
  status: z.enum(volumeItemStatuses).describe('pending until the VolumeSnapshot reports readyToUse'),
  volumeSnapshot: z.string().optional(),
  volumeSnapshotClass: z.string().optional(),
  storageClass: z.string().optional(),
  size: z.string().optional(),
  reason: z.string().optional(),
});

export const volumesPartSchema = z.object({
  status: partStatus,
  items: z.array(volumeItemSchema),
  detail: z.string().optional(),
});

export const partsSchema = z
  .object({
    resources: resourcesPartSchema,
    database: databasePartSchema,
    volumes: volumesPartSchema,
  })
  .meta({ id: 'SnapshotParts' });

export type SnapshotParts = z.infer<typeof partsSchema>;
export type ResourcesPart = z.infer<typeof resourcesPartSchema>;
export type DatabasePart = z.infer<typeof databasePartSchema>;
export type VolumesPart = z.infer<typeof volumesPartSchema>;
export type VolumeItem = z.infer<typeof volumeItemSchema>;

const when = z.iso.datetime().nullable();

export const snapshotSchema = z
  .object({
    id: z.string(),
    office: z.string(),
    status: z.enum(snapshotStatuses),
    trigger: z.enum(['manual', 'schedule']),
    description: z.string().nullable(),
    sizeBytes: z.number().int().describe('Bytes held in the blob store (database dump and resource specs)'),
    parts: partsSchema,
    error: z.string().nullable(),
    createdAt: z.iso.datetime(),
    startedAt: when,
    completedAt: when,
    deletedAt: when,
    links: z.object({ self: z.url(), restore: z.url() }),
  })
  .meta({ id: 'Snapshot' });

export const snapshotListSchema = z
  .object({
    data: z.array(snapshotSchema),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
  })
  .meta({ id: 'SnapshotList' });

export const listQuery = z.strictObject({
  office: officeId.optional().describe('Only this office’s snapshots'),
  status: z.enum(snapshotStatuses).optional().describe('Only this status (deleted ones only when asked)'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(200).optional(),
});

export const createBody = z
  .strictObject({
    office: officeId.describe('The office to snapshot'),
    description: z.string().max(500).optional(),
  })
  .meta({ id: 'SnapshotRequest' });

export const snapshotParams = z.strictObject({ id: snapshotId });
export const restoreParams = z.strictObject({ id: snapshotId, restoreId });
export const officeParams = z.strictObject({ officeID: officeId });

export const restoreBody = z
  .strictObject({
    parts: z
      .array(z.enum(['resources', 'database', 'volumes']))
      .min(1)
      .optional()
      .describe('Which parts to restore (default: all)'),
  })
  .meta({ id: 'RestoreRequest' });

export const restoreReportSchema = z.object({
  resources: z
    .object({ status: partStatus, applied: z.array(z.string()), detail: z.string().optional() })
    .optional(),
  database: z
    .object({
      status: partStatus,
      tables: z.number().int(),
      rows: z.number().int(),
      detail: z.string().optional(),
    })
    .optional(),
  volumes: z
    .object({
      status: partStatus,
      items: z.array(z.object({ pvc: z.string(), status: partStatus, detail: z.string().optional() })),
      detail: z.string().optional(),
    })
    .optional(),
});
export type RestoreReport = z.infer<typeof restoreReportSchema>;

export const restoreSchema = z
  .object({
    id: z.string(),
    snapshotId: z.string(),
    office: z.string(),
    status: z.enum(restoreStatuses),
    report: restoreReportSchema,
    error: z.string().nullable(),
    createdAt: z.iso.datetime(),
    completedAt: when,
    links: z.object({ self: z.url(), snapshot: z.url() }),
  })
  .meta({ id: 'SnapshotRestore' });

export const scheduleBody = z
  .strictObject({
    enabled: z.boolean(),
    hourUtc: z
      .number()
      .int()
      .min(0)
      .max(23)
      .default(3)
      .describe('Hour of the day (UTC) the daily snapshot runs'),
    retentionDays: z.number().int().min(1).max(365).default(30),
  })
  .meta({ id: 'SnapshotScheduleRequest' });

export const scheduleSchema = z
  .object({
    office: z.string(),
    enabled: z.boolean(),
    frequency: z.literal('daily'),
    hourUtc: z.number().int(),
    retentionDays: z.number().int(),
    nextRunAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'SnapshotSchedule' });
