// Identity's schema changes (ids 200–299): accounts, browser sessions, office membership, server keys,
// OAuth artifacts, API keys and their one-time reveals (203, memories, lives in api/memory).
import { eachDialect } from '../storage/column-types.ts';
import type { Migration } from '../storage/migration-runner.ts';

export const identityMigrations: readonly Migration[] = [
  {
    id: 200,
    name: 'accounts, sessions, office members and server keys',
    sql: eachDialect(
      (t) => `
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY,
          email TEXT NOT NULL UNIQUE,
          name TEXT NOT NULL,
          password_hash TEXT NOT NULL,
          created_at ${t.bigint} NOT NULL,
          updated_at ${t.bigint} NOT NULL
        );
        CREATE TABLE account_sessions (
          id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          created_at ${t.bigint} NOT NULL,
          expires_at ${t.bigint} NOT NULL,
          last_seen_at ${t.bigint} NOT NULL
        );
        CREATE INDEX account_sessions_account ON account_sessions (account_id);
        CREATE TABLE office_members (
          office_id TEXT NOT NULL,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          role TEXT NOT NULL,
          created_at ${t.bigint} NOT NULL,
          PRIMARY KEY (office_id, account_id)
        );
        CREATE INDEX office_members_account ON office_members (account_id);
        CREATE TABLE server_keys (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL,
          created_at ${t.bigint} NOT NULL
        );`,
    ),
  },
  {
    id: 201,
    name: 'oauth artifacts (oidc-provider adapter)',
    sql: eachDialect(
      (t) => `
        CREATE TABLE oauth_artifacts (
          model TEXT NOT NULL,
          id TEXT NOT NULL,
          payload ${t.json} NOT NULL,
          grant_id TEXT,
          user_code TEXT,
          uid TEXT,
          account_id TEXT,
          client_id TEXT,
          expires_at ${t.bigint},
          consumed_at ${t.bigint},
          PRIMARY KEY (model, id)
        );
        CREATE INDEX oauth_artifacts_grant ON oauth_artifacts (grant_id);
        CREATE INDEX oauth_artifacts_user_code ON oauth_artifacts (model, user_code);
        CREATE INDEX oauth_artifacts_uid ON oauth_artifacts (model, uid);
        CREATE INDEX oauth_artifacts_account ON oauth_artifacts (model, account_id);
        CREATE INDEX oauth_artifacts_expiry ON oauth_artifacts (expires_at)`,
    ),
  },
  {
    id: 202,
    name: 'api keys',
    sql: eachDialect(
      (t) => `
        CREATE TABLE api_keys (
          id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          hint TEXT NOT NULL,
          token_hash TEXT NOT NULL UNIQUE,
          scopes ${t.json} NOT NULL,
          offices ${t.json},
          created_at ${t.bigint} NOT NULL,
          last_used_at ${t.bigint},
          expires_at ${t.bigint},
          revoked_at ${t.bigint}
        );
        CREATE INDEX api_keys_account ON api_keys (account_id)`,
    ),
  },
];

/** Added after backups (400, 401): databases that exist run it last, so fresh ones do too. */
export const keyRevealMigrations: readonly Migration[] = [
  {
    id: 204,
    name: 'one-time reveals of new api keys',
    sql: eachDialect(
      (t) => `
        CREATE TABLE key_reveals (
          id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          sealed TEXT NOT NULL,
          expires_at ${t.bigint} NOT NULL
        );
        CREATE INDEX key_reveals_expiry ON key_reveals (expires_at)`,
    ),
  },
];

/**
 * An agent credential (spec 5.5 service_auth) is an API key bound to one office and named for the
 * agent it was provisioned for; that agent never acts as the owner who made it.
 */
export const agentKeyMigration: Migration = {
  id: 107,
  name: 'api keys: the agent an agent credential was provisioned for',
  sql: eachDialect(() => 'ALTER TABLE api_keys ADD COLUMN agent_name TEXT'),
};
