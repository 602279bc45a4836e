// Identity's schema changes (ids 200–299): accounts, browser sessions, office membership, server keys.
import { eachDialect } from './column-types.ts';
import type { Migration } from './migration-runner.ts';

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
  {
    id: 203,
    name: 'memories (cortex) with full-text indexes',
    // SQLite's FTS5 table is external-content over memories, kept in step by the repository in the
    // same transaction (migration bodies are split on ';', so no triggers). seq is the stable rowid,
    // never reused, so an index entry left by a cascade delete can never point at another memory.
    sql: {
      sqlite: `
        CREATE TABLE memories (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          kind TEXT NOT NULL,
          content TEXT NOT NULL,
          source TEXT,
          document_id TEXT,
          chunk_index INTEGER NOT NULL DEFAULT 0,
          occurred_at INTEGER,
          created_at INTEGER NOT NULL,
          embedding BLOB
        );
        CREATE INDEX memories_account ON memories (account_id, created_at);
        CREATE INDEX memories_document ON memories (account_id, document_id);
        CREATE VIRTUAL TABLE memories_fts USING fts5(
          content, source, content='memories', content_rowid='seq', tokenize='porter unicode61'
        )`,
      postgres: `
        CREATE TABLE memories (
          id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
          kind TEXT NOT NULL,
          content TEXT NOT NULL,
          source TEXT,
          document_id TEXT,
          chunk_index INTEGER NOT NULL DEFAULT 0,
          occurred_at BIGINT,
          created_at BIGINT NOT NULL,
          embedding BYTEA,
          search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('english', content), 'A') ||
            setweight(to_tsvector('english', coalesce(source, '')), 'B')
          ) STORED
        );
        CREATE INDEX memories_account ON memories (account_id, created_at);
        CREATE INDEX memories_document ON memories (account_id, document_id);
        CREATE INDEX memories_search ON memories USING GIN (search)`,
    },
  },
];
