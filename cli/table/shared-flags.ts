// Flags several commands share, spelled once so their help reads the same everywhere.
import type { FlagSpec } from '../spec.ts';

export const officeFlag: FlagSpec = {
  type: 'string',
  value: '<office>',
  required: true,
  description: 'The office (its id, e.g. acme)',
};

export const waitFlag: FlagSpec = {
  type: 'boolean',
  description: 'Follow the job until it finishes (a progress line on a terminal; Ctrl-C stops waiting)',
};

export const idempotencyFlag: FlagSpec = {
  type: 'string',
  value: '<key>',
  description: 'Makes a retried request return the first answer instead of starting again',
};

export const instanceFlag: FlagSpec = {
  type: 'string',
  value: '<name>',
  description: 'The instance of a multi-instance integration',
};

export const cursorFlag: FlagSpec = {
  type: 'string',
  value: '<cursor>',
  description: 'The next page: the cursor a previous page ended with',
};

/** Flags every command takes; the parser adds them to each command's own. */
export const globalFlags: Readonly<Record<string, FlagSpec>> = {
  endpoint: {
    type: 'string',
    value: '<url>',
    description: 'The Colony API to talk to (default: COLONY_ENDPOINT, else the latest login)',
  },
  json: { type: 'boolean', description: 'Print machine-readable JSON on stdout' },
  help: { type: 'boolean', short: 'h', description: 'Show help for the command' },
};
