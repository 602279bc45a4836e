// The OAuth Connect flow's own table, in the integration framework's id range (300–399).
import { eachDialect } from '../storage/column-types.ts';
import type { Migration } from '../storage/migration-runner.ts';

// One row per OAuth-connected integration instance: when its access token expires, whether the
// last refresh worked, and a lease so one replica refreshes it at a time. Tokens stay in the Secret.
const connections = eachDialect(
  (t) => `
  CREATE TABLE oauth_connections (
    office_id TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    instance_label TEXT NOT NULL,
    namespace TEXT NOT NULL,
    secret_name TEXT NOT NULL,
    status TEXT NOT NULL,
    message TEXT,
    expires_at ${t.bigint},
    lease_until ${t.bigint} NOT NULL,
    connected_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL,
    PRIMARY KEY (office_id, integration_id, instance_label)
  );
  CREATE INDEX oauth_connections_due ON oauth_connections (status, expires_at)`,
);

export const connectMigrations: readonly Migration[] = [
  {
    id: 301,
    name: 'OAuth connections: token expiry, refresh status and lease',
    sql: connections,
  },
];
