// Pure: turns a person's free-text query into search terms both full-text engines accept safely.

// Words too common to say anything about relevance; dropped unless the query has nothing else.
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by did do does for from had has have how i in is it its me my of on or ' +
    'our so than that the their them then there these they this to was we were what when where which ' +
    'who why will with you your'
  ).split(' '),
);

const MAX_TERMS = 16;

/**
 * Lower-cased letter/digit runs, stop words removed, de-duplicated, at most 16. Only [\p{L}\p{N}]
 * survive, so no FTS5 or tsquery operator can be smuggled in through a query.
 */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const meaningful = words.filter((w) => !STOP_WORDS.has(w));
  const chosen = meaningful.length > 0 ? meaningful : words;
  return [...new Set(chosen)].slice(0, MAX_TERMS);
}

/** FTS5 MATCH expression: each term quoted; any term may match (`OR`) or all must (`AND`). */
export function fts5Expression(terms: readonly string[], mode: 'any' | 'all'): string {
  return terms.map((t) => `"${t}"`).join(mode === 'any' ? ' OR ' : ' AND ');
}

/** PostgreSQL to_tsquery text: terms are letters and digits only, so they need no quoting. */
export function tsqueryExpression(terms: readonly string[], mode: 'any' | 'all'): string {
  return terms.join(mode === 'any' ? ' | ' : ' & ');
}
