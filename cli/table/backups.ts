// `colony backups …`: office snapshots, their restores and the daily schedule.
import type { CommandSpec, GroupSpec } from '../spec.ts';
import { cursorFlag, idempotencyFlag, officeFlag, waitFlag } from './shared-flags.ts';

export const backupsGroups: GroupSpec[] = [
  { path: ['backups'], summary: 'Snapshot offices and restore them' },
  { path: ['backups', 'schedule'], summary: 'An office’s daily snapshot and how long snapshots are kept' },
];

const snapshotArg = { name: 'snapshot_id', required: true, description: 'The snapshot (snap_…)' };

export const backupsCommands: CommandSpec[] = [
  {
    path: ['backups', 'list'],
    summary: 'List office snapshots, newest first',
    args: [],
    flags: {
      office: { ...officeFlag, required: false, description: 'Only this office' },
      status: {
        type: 'string',
        value: '<status>',
        choices: ['pending', 'running', 'completed', 'failed', 'deleted'],
        description: 'Only snapshots in this status',
      },
      limit: { type: 'integer', value: '<n>', min: 1, max: 100, description: 'At most this many (1-100)' },
      cursor: cursorFlag,
    },
    examples: ['colony backups list --office acme', 'colony backups list --status failed --json'],
    auth: 'any',
    load: () => import('../commands/backups/list.ts').then((m) => m.run),
  },
  {
    path: ['backups', 'show'],
    summary: 'Show one snapshot and the report of each part',
    args: [snapshotArg],
    flags: {},
    examples: ['colony backups show snap_0123456789abcdef01234567'],
    auth: 'any',
    load: () => import('../commands/backups/show.ts').then((m) => m.run),
  },
  {
    path: ['backups', 'create'],
    summary: 'Take a snapshot of an office (--wait to follow it until it finishes)',
    args: [],
    flags: {
      office: officeFlag,
      description: { type: 'string', value: '<text>', description: 'A note kept with the snapshot' },
      'idempotency-key': idempotencyFlag,
      wait: waitFlag,
    },
    examples: ['colony backups create --office acme --wait', 'colony backups create --office acme --json'],
    auth: 'any',
    load: () => import('../commands/backups/create.ts').then((m) => m.run),
  },
  {
    path: ['backups', 'restore'],
    summary: 'Restore an office from a snapshot (--wait to follow it until it finishes)',
    args: [snapshotArg],
    flags: {
      parts: {
        type: 'string',
        value: '<part,…>',
        description: 'Only these parts: resources, database, volumes (default: all)',
      },
      'idempotency-key': idempotencyFlag,
      wait: waitFlag,
    },
    examples: ['colony backups restore snap_0123456789abcdef01234567 --parts resources --wait'],
    auth: 'any',
    load: () => import('../commands/backups/restore.ts').then((m) => m.run),
  },
  {
    path: ['backups', 'delete'],
    summary: 'Delete a finished snapshot and everything it holds',
    args: [snapshotArg],
    flags: {},
    examples: ['colony backups delete snap_0123456789abcdef01234567'],
    auth: 'any',
    load: () => import('../commands/backups/delete.ts').then((m) => m.run),
  },
  {
    path: ['backups', 'schedule', 'show'],
    summary: 'Show an office’s daily snapshot schedule, its retention and the next run (backups:admin)',
    args: [],
    flags: { office: officeFlag },
    examples: ['colony backups schedule show --office acme'],
    auth: 'any',
    load: () => import('../commands/backups/schedule.ts').then((m) => m.show),
  },
  {
    path: ['backups', 'schedule', 'set'],
    summary: 'Turn an office’s daily snapshot on (at an hour, with a retention) or off (backups:admin)',
    args: [],
    flags: {
      office: officeFlag,
      hour: {
        type: 'integer',
        value: '<0-23>',
        min: 0,
        max: 23,
        description: 'Hour of the day, UTC (default: 3)',
      },
      'retention-days': {
        type: 'integer',
        value: '<days>',
        min: 1,
        max: 365,
        description: 'Days a scheduled snapshot is kept (default: 30)',
      },
      off: { type: 'boolean', description: 'Turn the daily snapshot off' },
    },
    examples: [
      'colony backups schedule set --office acme --hour 2 --retention-days 14',
      'colony backups schedule set --office acme --off',
    ],
    auth: 'any',
    load: () => import('../commands/backups/schedule.ts').then((m) => m.set),
  },
];
