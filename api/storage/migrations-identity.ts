// Identity's schema changes (ids 200–299): accounts, browser sessions, office membership, server keys.
import type { Migration } from './migrations.ts';

export const identityMigrations: readonly Migration[] = [
  {
    id: 200,
    name: 'accounts, sessions, office members and server keys',
    sql: {
      sqlite: `
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY,
          email TEXT NOT NULL UNIQUE,
          name TEXT NOT NULL,
          password_hash TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE account_sessions (
          id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          last_seen_at INTEGER NOT NULL
        );
        CREATE INDEX account_sessions_account ON account_sessions (account_id);
        CREATE TABLE office_members (
          office_id TEXT NOT NULL,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          role TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (office_id, account_id)
        );
        CREATE INDEX office_members_account ON office_members (account_id);
        CREATE TABLE server_keys (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL,
          created_at INTEGER NOT NULL
        );`,
      postgres: `
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY,
          email TEXT NOT NULL UNIQUE,
          name TEXT NOT NULL,
          password_hash TEXT NOT NULL,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL
        );
        CREATE TABLE account_sessions (
          id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          created_at BIGINT NOT NULL,
          expires_at BIGINT NOT NULL,
          last_seen_at BIGINT NOT NULL
        );
        CREATE INDEX account_sessions_account ON account_sessions (account_id);
        CREATE TABLE office_members (
          office_id TEXT NOT NULL,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          role TEXT NOT NULL,
          created_at BIGINT NOT NULL,
          PRIMARY KEY (office_id, account_id)
        );
        CREATE INDEX office_members_account ON office_members (account_id);
        CREATE TABLE server_keys (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL,
          created_at BIGINT NOT NULL
        );`,
    },
  },
];
