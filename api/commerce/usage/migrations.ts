// What the API reported of each office's metered usage to the payment processor (migration 105).
import { eachDialect } from '../../storage/column-types.ts';
import type { Migration } from '../../storage/migration-runner.ts';

export const usageReportsMigration: Migration = {
  id: 105,
  name: 'usage reports: the metered usage of each office sent to the processor, chained per period',
  sql: eachDialect(
    (t) => `
  -- The identifier encodes (office_id, period, from_total): one report per stretch start.
  CREATE TABLE usage_reports (
    identifier TEXT NOT NULL PRIMARY KEY,
    office_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    period TEXT NOT NULL,
    from_total ${t.bigint} NOT NULL,
    to_total ${t.bigint} NOT NULL,
    created_at ${t.bigint} NOT NULL,
    reported_at ${t.bigint}
  );
  CREATE INDEX usage_reports_pending ON usage_reports (reported_at, office_id)`,
  ),
};
