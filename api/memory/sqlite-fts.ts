// SQLite's FTS5 statements for the memories, scoped to one account inside the index itself.
//
// memories_fts is one index over every account. Filtering by account after MATCH made a recall cost
// grow with everyone's matching memories (21 ms at 100k rows for a term many accounts use): the
// index also holds a per-account token (memories.fts_owner), and every MATCH is ANDed with it, so
// FTS5 walks only the account's entries. The account_id filter stays as the authority.
import type { SqlExecutor } from '../storage/sql-driver.ts';
import { fts5Expression } from './query-terms.ts';

/**
 * The token memories.fts_owner holds, spelt as its generated column spells it (migration 205):
 * letters and digits only, so unicode61 keeps it one token, ending in a digit so that the porter
 * stemmer leaves it whole.
 */
export const ftsOwner = (accountId: string): string => `own${accountId.replaceAll('_', '')}0`;

/** The account's scope ANDed with an expression over the memory's own columns (never the owner). */
export const scopedMatch = (accountId: string, expression: string): string =>
  `fts_owner : "${ftsOwner(accountId).replaceAll('"', '""')}" AND {content source} : (${expression})`;

/** Whether the account holds more than `$n` memories: an index probe that stops at that row. */
const accountBig = (n: string) => `EXISTS (SELECT 1 FROM memories WHERE account_id = $1 LIMIT 1 OFFSET ${n})`;

/** A MATCH expression nothing satisfies: every owner token starts with "own". */
const MATCHES_NOTHING = 'fts_owner : "none"';

/** Best first, by bm25 over the memory's own columns (the owner column weighs nothing). */
const searchSql = (columns: string, match: string) =>
  `SELECT ${columns}, -bm25(memories_fts, 1.0, 0.4, 0.0) AS score
   FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
   WHERE memories_fts MATCH ${match} AND m.account_id = $1
   ORDER BY score DESC, m.created_at DESC LIMIT $3`;

export const SEARCH_SQL = (columns: string) => searchSql(columns, '$2');

/**
 * SEARCH_SQL for an account holding at most $4 memories, where no term can be frequent: the size
 * probe rides in the same statement (one read transaction, not two). A bigger account matches
 * nothing, at the probe's cost, so an empty answer means "no match, or ask the long way".
 */
export const SEARCH_IF_SMALL_SQL = (columns: string) =>
  searchSql(columns, `CASE WHEN ${accountBig('$4')} THEN '${MATCHES_NOTHING}' ELSE $2 END`);

/** Which terms more than `threshold` of the account's memories hold. */
export async function frequentTermsSqlite(
  db: SqlExecutor,
  accountId: string,
  terms: readonly string[],
  threshold: number,
): Promise<Set<string>> {
  // An account holding no more memories than that has no frequent term: one index probe tells, and
  // most accounts stop there. Otherwise one scalar subquery per term, each stopping at that row.
  const [size] = await db.query<{ big: number }>(`SELECT ${accountBig('$2')} AS big`, [accountId, threshold]);
  if (Number(size?.big) !== 1) return new Set();
  const probes = terms.map(
    (_, i) =>
      `EXISTS (SELECT 1 FROM memories_fts WHERE memories_fts MATCH $${i + 2} LIMIT 1 OFFSET $1) AS t${i}`,
  );
  const [row] = await db.query<Record<string, number>>(`SELECT ${probes.join(', ')}`, [
    threshold,
    ...terms.map((t) => scopedMatch(accountId, fts5Expression([t], 'any'))),
  ]);
  return new Set(terms.filter((_, i) => Number(row?.[`t${i}`]) === 1));
}

/** The FTS row of a memory, read back from its row so the owner token is the generated column's. */
export const INDEX_MEMORY_SQL = `INSERT INTO memories_fts (rowid, content, source, fts_owner)
  SELECT seq, content, coalesce(source, ''), fts_owner FROM memories WHERE seq = $1`;

/** FTS5's delete command for an external-content row needs the exact values it indexed. */
export const UNINDEX_MEMORY_SQL = `INSERT INTO memories_fts (memories_fts, rowid, content, source, fts_owner)
  SELECT 'delete', seq, content, coalesce(source, ''), fts_owner FROM memories WHERE seq = $1`;
