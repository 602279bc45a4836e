// Pure: names, SQL and checks for part 2 (the office database dump and its restore).
import { officeDatabase } from '../../cluster/database-names.ts';

/** The office's database, named by the integrations' database layer, which creates it. */
export const officeDatabaseName = officeDatabase;

/** The admin URL pointed at another database on the same server. */
export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

export interface DumpedColumn {
  name: string;
  type: string;
}

export interface DumpedTable {
  schema: string;
  name: string;
  columns: DumpedColumn[];
  rows: number;
  bytes: number;
  blob: string;
}

export interface DumpedSequence {
  schema: string;
  name: string;
  lastValue: string;
  isCalled: boolean;
}

export interface DatabaseManifest {
  version: 1;
  database: string;
  format: 'copy-text';
  tables: DumpedTable[];
  sequences: DumpedSequence[];
}

export const qualified = (t: { schema: string; name: string }) =>
  `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;

const columnList = (columns: readonly DumpedColumn[]) => columns.map((c) => quoteIdent(c.name)).join(', ');

export const copyOutSql = (t: { schema: string; name: string; columns: readonly DumpedColumn[] }) =>
  `COPY ${qualified(t)} (${columnList(t.columns)}) TO STDOUT`;

export const copyInSql = (t: { schema: string; name: string; columns: readonly DumpedColumn[] }) =>
  `COPY ${qualified(t)} (${columnList(t.columns)}) FROM STDIN`;

/** Every user table: system schemas are PostgreSQL's own and come back with the server. */
export const LIST_TABLES = `
  SELECT n.nspname AS schema, c.relname AS name, c.oid::int8 AS oid
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind = 'r' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
  ORDER BY n.nspname, c.relname`;

/** Stored columns only: generated columns are recomputed and COPY cannot write them. */
export const LIST_COLUMNS = `
  SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
  FROM pg_attribute a
  WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
  ORDER BY a.attnum`;

export const LIST_SEQUENCES = `
  SELECT n.nspname AS schema, c.relname AS name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind = 'S' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
  ORDER BY n.nspname, c.relname`;

/** Foreign keys between user tables: referencing and referenced table of each. */
export const LIST_FOREIGN_KEYS = `
  SELECT cn.nspname AS child_schema, c.relname AS child_name, pn.nspname AS parent_schema, p.relname AS parent_name
  FROM pg_constraint k
  JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
  JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace
  WHERE k.contype = 'f'`;

/**
 * What differs between the dumped tables and the live database, one sentence each; empty means the
 * dump can be loaded. Columns are compared by name and type; order does not matter (COPY names them).
 */
export function schemaDifferences(
  dumped: readonly DumpedTable[],
  live: ReadonlyMap<string, readonly DumpedColumn[]>,
): string[] {
  return dumped.flatMap((t) => tableDifferences(t, live.get(`${t.schema}.${t.name}`)));
}

function tableDifferences(t: DumpedTable, columns: readonly DumpedColumn[] | undefined): string[] {
  const key = `${t.schema}.${t.name}`;
  if (!columns) return [`table ${key} no longer exists`];
  const out: string[] = [];
  const liveTypes = new Map(columns.map((c) => [c.name, c.type]));
  for (const c of t.columns) {
    const type = liveTypes.get(c.name);
    if (type === undefined) out.push(`${key}.${c.name} no longer exists`);
    else if (type !== c.type) out.push(`${key}.${c.name} is now ${type}, was ${c.type}`);
  }
  const dumpedNames = new Set(t.columns.map((c) => c.name));
  for (const c of columns) if (!dumpedNames.has(c.name)) out.push(`${key}.${c.name} is new (${c.type})`);
  return out;
}

/**
 * Load order so a referenced table is filled before the tables that reference it (non-deferrable
 * foreign keys are checked row by row). Cycles and self-references keep their dump order.
 */
export function loadOrder<T extends { schema: string; name: string }>(
  tables: readonly T[],
  edges: readonly { child: string; parent: string }[],
): T[] {
  const byKey = new Map(tables.map((t) => [qualified(t), t]));
  const parents = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.child === e.parent || !byKey.has(e.child) || !byKey.has(e.parent)) continue;
    const set = parents.get(e.child) ?? new Set<string>();
    set.add(e.parent);
    parents.set(e.child, set);
  }
  const done = new Set<string>();
  const visiting = new Set<string>();
  const out: T[] = [];
  const visit = (key: string) => {
    if (done.has(key) || visiting.has(key)) return;
    visiting.add(key);
    for (const p of parents.get(key) ?? []) visit(p);
    visiting.delete(key);
    done.add(key);
    out.push(byKey.get(key) as T);
  };
  for (const t of tables) visit(qualified(t));
  return out;
}
