// PostgreSQL's full-text statements for the memories: which plan a search takes depends on how many
// memories the account holds.
//
// With one GIN index over every account, the planner ANDs a bitmap of the account's rows with a GIN
// scan of every account's matches, so a small account's recall grew with everyone else's memories
// (3.5 ms with an empty table, 28 ms among 100k other rows sharing its words). For an account
// holding no more than the threshold, reading its own rows and testing each tsvector is bounded by
// that threshold; a larger account keeps the index plan.
import type { SqlExecutor } from '../storage/sql-driver.ts';

export interface TermStats {
  /** The account holds more memories than the threshold. */
  big: boolean;
  /** Terms more than the threshold of the account's memories hold (only asked of a big account). */
  frequent: Set<string>;
}

/**
 * One round trip: whether the account is big and, only then (CASE evaluates lazily), an EXISTS per
 * term that stops at the threshold's row. `withFrequency` false skips the per-term checks.
 */
export async function termStatsPostgres(
  db: SqlExecutor,
  accountId: string,
  terms: readonly string[],
  threshold: number,
  withFrequency: boolean,
): Promise<TermStats> {
  const probes = withFrequency
    ? terms.map(
        (_, i) => `CASE WHEN s.big THEN EXISTS (SELECT 1 FROM memories m WHERE m.account_id = $1
           AND m.search @@ to_tsquery('english', $${i + 3}) OFFSET $2 LIMIT 1) END AS t${i}`,
      )
    : [];
  const [row] = await db.query<Record<string, boolean | null>>(
    `SELECT ${['s.big', ...probes].join(', ')}
     FROM (SELECT EXISTS (SELECT 1 FROM memories WHERE account_id = $1 OFFSET $2 LIMIT 1) AS big) s`,
    [accountId, threshold, ...(withFrequency ? terms : [])],
  );
  return {
    big: row?.big === true,
    frequent: new Set(terms.filter((_, i) => withFrequency && row?.[`t${i}`] === true)),
  };
}

const smallAccountSearch = (columns: string, onlyIfSmall: boolean) =>
  `WITH mine AS MATERIALIZED (
     SELECT id, account_id, kind, content, source, document_id, chunk_index, occurred_at, created_at, search
     FROM memories WHERE account_id = $1${onlyIfSmall ? ' AND NOT EXISTS (SELECT 1 FROM memories WHERE account_id = $1 OFFSET $5 LIMIT 1)' : ''})
   SELECT ${columns}, ts_rank_cd(m.search, r) AS score
   FROM mine m, to_tsquery('english', $2) q, to_tsquery('english', $4) r
   WHERE m.search @@ q
   ORDER BY score DESC, m.created_at DESC LIMIT $3`;

/** Best first by ts_rank_cd. A small account's rows are read first (MATERIALIZED keeps them apart). */
export const searchSqlPostgres = (columns: string, big: boolean) =>
  big
    ? `SELECT ${columns}, ts_rank_cd(m.search, r) AS score
       FROM memories m, to_tsquery('english', $2) q, to_tsquery('english', $4) r
       WHERE m.account_id = $1 AND m.search @@ q
       ORDER BY score DESC, m.created_at DESC LIMIT $3`
    : smallAccountSearch(columns, false);

/**
 * The small account's search, for an account holding at most $5 memories, with the size probe in
 * the same round trip: an uncorrelated condition PostgreSQL checks once, before reading any row, so
 * a bigger account reads nothing and an empty answer means "no match, or ask the long way".
 */
export const searchSqlPostgresIfSmall = (columns: string) => smallAccountSearch(columns, true);
