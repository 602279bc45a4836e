// The memory (cortex) table, in identity's id range (200–299) since memories belong to accounts:
// the one migration whose dialects really differ, in full-text search and the row id.
import type { Migration } from '../storage/migration-runner.ts';

export const memoryMigrations: readonly Migration[] = [
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

/** Appended after every older migration (app-storage.ts keeps the replay order). */
export const memoryIndexScopeMigration: Migration = {
  id: 205,
  name: 'memories full-text index scoped by account',
  // The index gains the account's token (sqlite-fts.ts) so a search walks one account's entries;
  // FTS5 reads an external-content column by name, hence the generated column of the same name.
  // PostgreSQL already filters by account before ranking.
  sql: {
    sqlite: `
        ALTER TABLE memories ADD COLUMN fts_owner TEXT GENERATED ALWAYS AS ('own' || replace(account_id, '_', '') || '0') VIRTUAL;
        DROP TABLE memories_fts;
        CREATE VIRTUAL TABLE memories_fts USING fts5(
          content, source, fts_owner, content='memories', content_rowid='seq', tokenize='porter unicode61'
        );
        INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')`,
    postgres: '',
  },
};
