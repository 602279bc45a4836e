// The memory (cortex) store: memories per account with full-text search (FTS5 or tsvector).

import type { SqlDriver, SqlExecutor } from '../storage/sql-driver.ts';
import { searchSqlPostgres, searchSqlPostgresIfSmall, termStatsPostgres } from './postgres-fts.ts';
import { fts5Expression, prunedExpressions, tsqueryExpression } from './query-terms.ts';
import {
  frequentTermsSqlite,
  INDEX_MEMORY_SQL,
  SEARCH_IF_SMALL_SQL,
  SEARCH_SQL,
  scopedMatch,
  UNINDEX_MEMORY_SQL,
} from './sqlite-fts.ts';

export type MemoryKind = 'fact' | 'document' | 'conversation';

export interface MemoryRecord {
  id: string;
  accountId: string;
  kind: MemoryKind;
  content: string;
  source: string | null;
  /** The document or conversation a chunk belongs to; null for a single fact. */
  documentId: string | null;
  chunkIndex: number;
  /** When what the memory records happened, if the caller said; createdAt is when it was stored. */
  occurredAt: number | null;
  createdAt: number;
}

export interface ScoredMemory {
  memory: MemoryRecord;
  /** Higher is better; comparable only within one search. */
  score: number;
}

export interface SourceSummary {
  source: string | null;
  kind: MemoryKind;
  memories: number;
  lastStoredAt: number;
}

interface Row {
  id: string;
  account_id: string;
  kind: MemoryKind;
  content: string;
  source: string | null;
  document_id: string | null;
  chunk_index: number;
  occurred_at: number | null;
  created_at: number;
  score?: number;
}

const COLUMNS =
  'm.id, m.account_id, m.kind, m.content, m.source, m.document_id, m.chunk_index, m.occurred_at, m.created_at';

const SEARCH_SQLITE = SEARCH_SQL(COLUMNS);
const SEARCH_SQLITE_IF_SMALL = SEARCH_IF_SMALL_SQL(COLUMNS);
const SEARCH_POSTGRES_IF_SMALL = searchSqlPostgresIfSmall(COLUMNS);

const toRecord = (r: Row): MemoryRecord => ({
  id: r.id,
  accountId: r.account_id,
  kind: r.kind,
  content: r.content,
  source: r.source,
  documentId: r.document_id,
  chunkIndex: Number(r.chunk_index),
  occurredAt: r.occurred_at === null ? null : Number(r.occurred_at),
  createdAt: Number(r.created_at),
});

/** `($from, $from+1, …)`: placeholders for a list or a row of parameters. */
const placeholders = (n: number, from: number) =>
  `(${Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ')})`;

const INSERT =
  'INSERT INTO memories (id, account_id, kind, content, source, document_id, chunk_index, occurred_at, created_at)';
const PG_BATCH = 500;
/** Past this many matches in one account, a term no longer widens an any-term search. */
const FREQUENT_MATCHES = 1000;

const rowParams = (m: MemoryRecord) => [
  m.id,
  m.accountId,
  m.kind,
  m.content,
  m.source,
  m.documentId,
  m.chunkIndex,
  m.occurredAt,
  m.createdAt,
];

function insertRows(tx: SqlExecutor, rows: readonly MemoryRecord[]) {
  const values = rows.map((_, i) => placeholders(9, 1 + i * 9)).join(', ');
  return tx.query(`${INSERT} VALUES ${values}`, rows.flatMap(rowParams));
}

export class MemoriesRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Stores the memories in one transaction: all of them or none. */
  async insertMany(memories: readonly MemoryRecord[]): Promise<void> {
    if (memories.length === 0) return;
    await this.db.transaction(async (tx) => {
      if (tx.dialect === 'postgres') {
        // Multi-row statements: a large document is one round trip per 500 chunks, not per chunk.
        for (let i = 0; i < memories.length; i += PG_BATCH)
          await insertRows(tx, memories.slice(i, i + PG_BATCH));
        return;
      }
      for (const m of memories) await this.insertSqlite(tx, m);
    });
  }

  private async insertSqlite(tx: SqlExecutor, m: MemoryRecord): Promise<void> {
    const [row] = await tx.query<{ seq: number }>(
      `${INSERT} VALUES ${placeholders(9, 1)} RETURNING seq`,
      rowParams(m),
    );
    await tx.query(INDEX_MEMORY_SQL, [Number(row?.seq)]);
  }

  /**
   * Full-text search within one account, best first. `any`: ranked by BM25 (SQLite) or
   * ts_rank_cd (PostgreSQL) over memories with at least one term — with terms found in more than
   * FREQUENT_MATCHES of the account's memories not widening the candidates when a rarer term is
   * there; `all`: every term must occur.
   */
  async search(
    accountId: string,
    terms: readonly string[],
    limit: number,
    mode: 'any' | 'all' = 'any',
  ): Promise<ScoredMemory[]> {
    if (terms.length === 0) return [];
    const rows =
      this.db.dialect === 'postgres'
        ? await this.searchPostgres(accountId, terms, limit, mode)
        : await this.searchSqlite(accountId, terms, limit, mode);
    return rows.map((r) => ({ memory: toRecord(r), score: Number(r.score) }));
  }

  private async searchSqlite(
    accountId: string,
    terms: readonly string[],
    limit: number,
    mode: 'any' | 'all',
  ) {
    const run = (sql: string, fts5: string, ...more: number[]) =>
      this.db.query<Row>(sql, [accountId, scopedMatch(accountId, fts5), limit, ...more]);
    // One term, or every term required: nothing to prune.
    if (mode === 'all' || terms.length === 1) return run(SEARCH_SQLITE, fts5Expression(terms, mode));
    // Most accounts hold too few memories for a frequent term, and are answered in one statement.
    const small = await run(SEARCH_SQLITE_IF_SMALL, fts5Expression(terms, 'any'), FREQUENT_MATCHES);
    if (small.length > 0) return small;
    // No match, or a bigger account: the pruned search, as the account is now.
    const frequent = await frequentTermsSqlite(this.db, accountId, terms, FREQUENT_MATCHES);
    return run(SEARCH_SQLITE, prunedExpressions(terms, frequent).fts5);
  }

  private async searchPostgres(
    accountId: string,
    terms: readonly string[],
    limit: number,
    mode: 'any' | 'all',
  ) {
    // A small account has no frequent term: one round trip searches it whole, probing its size too.
    const whole = tsqueryExpression(terms, mode);
    const small = await this.db.query<Row>(SEARCH_POSTGRES_IF_SMALL, [
      accountId,
      whole,
      limit,
      whole,
      FREQUENT_MATCHES,
    ]);
    if (small.length > 0) return small;
    // No match, or a bigger account: its plan and pruning, as the account is now.
    const stats = await termStatsPostgres(
      this.db,
      accountId,
      terms,
      FREQUENT_MATCHES,
      mode === 'any' && terms.length > 1,
    );
    const all = tsqueryExpression(terms, 'all');
    const expressions =
      mode === 'all' ? { tsqueryFilter: all, tsqueryRank: all } : prunedExpressions(terms, stats.frequent);
    return this.db.query<Row>(searchSqlPostgres(COLUMNS, stats.big), [
      accountId,
      expressions.tsqueryFilter,
      limit,
      expressions.tsqueryRank,
    ]);
  }

  async get(accountId: string, ids: readonly string[]): Promise<MemoryRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM memories m WHERE m.account_id = $1 AND m.id IN ${placeholders(ids.length, 2)}`,
      [accountId, ...ids],
    );
    return rows.map(toRecord);
  }

  /** Deletes the account's memories with these ids (others' ids match nothing); returns those deleted. */
  async delete(accountId: string, ids: readonly string[]): Promise<MemoryRecord[]> {
    if (ids.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const inList = placeholders(ids.length, 2);
      if (tx.dialect === 'postgres') {
        const rows = await tx.query<Row>(
          `DELETE FROM memories m WHERE m.account_id = $1 AND m.id IN ${inList} RETURNING ${COLUMNS}`,
          [accountId, ...ids],
        );
        return rows.map(toRecord);
      }
      const rows = await tx.query<Row & { seq: number }>(
        `SELECT m.seq, ${COLUMNS} FROM memories m WHERE m.account_id = $1 AND m.id IN ${inList}`,
        [accountId, ...ids],
      );
      for (const r of rows) {
        await tx.query(UNINDEX_MEMORY_SQL, [Number(r.seq)]);
        await tx.query('DELETE FROM memories WHERE seq = $1', [Number(r.seq)]);
      }
      return rows.map(toRecord);
    });
  }

  /** Stores the vectors of some of the account's memories (Float32 little-endian bytes). */
  async setEmbeddings(
    accountId: string,
    vectors: readonly { id: string; bytes: Uint8Array }[],
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (const v of vectors) {
        await tx.query('UPDATE memories SET embedding = $1 WHERE account_id = $2 AND id = $3', [
          v.bytes,
          accountId,
          v.id,
        ]);
      }
    });
  }

  /** The newest embedded memories of the account, for ranking by vector in the service. */
  async recentEmbeddings(accountId: string, limit: number): Promise<{ id: string; bytes: Uint8Array }[]> {
    const rows = await this.db.query<{ id: string; embedding: Uint8Array }>(
      `SELECT id, embedding FROM memories WHERE account_id = $1 AND embedding IS NOT NULL
       ORDER BY created_at DESC LIMIT $2`,
      [accountId, limit],
    );
    return rows.map((r) => ({ id: r.id, bytes: r.embedding }));
  }

  async countEmbedded(accountId: string): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM memories WHERE account_id = $1 AND embedding IS NOT NULL',
      [accountId],
    );
    return Number(row?.n ?? 0);
  }

  async count(accountId: string): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM memories WHERE account_id = $1',
      [accountId],
    );
    return Number(row?.n ?? 0);
  }

  /** What is stored, grouped by source and kind, most recently stored first. */
  async sources(accountId: string, limit: number): Promise<SourceSummary[]> {
    const rows = await this.db.query<{ source: string | null; kind: MemoryKind; n: number; last: number }>(
      `SELECT source, kind, COUNT(*) AS n, MAX(created_at) AS last FROM memories
       WHERE account_id = $1 GROUP BY source, kind ORDER BY last DESC LIMIT $2`,
      [accountId, limit],
    );
    return rows.map((r) => ({
      source: r.source,
      kind: r.kind,
      memories: Number(r.n),
      lastStoredAt: Number(r.last),
    }));
  }

  /** Checks the full-text index answers (a query for a word no memory contains). */
  async indexHealthy(): Promise<boolean> {
    const probe = ['zzcolonyprobe'];
    await this.search('acct_probe', probe, 1);
    return true;
  }
}
