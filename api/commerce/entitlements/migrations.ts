// The billing account of each self-serve office (migration 104).
import { eachDialect } from '../../storage/column-types.ts';
import type { Migration } from '../../storage/migration-runner.ts';

export const officeBillingMigration: Migration = {
  id: 104,
  name: 'office billing: the account whose plan each self-serve office counts against',
  sql: eachDialect(
    (t) => `
  CREATE TABLE office_billing (
    office_id TEXT NOT NULL PRIMARY KEY,
    account_id TEXT NOT NULL,
    created_at ${t.bigint} NOT NULL
  );
  CREATE INDEX office_billing_account ON office_billing (account_id)`,
  ),
};
