// How commands print: JSON for --json, aligned tables (with headers on a terminal) for people, and a
// friendly line on stderr for an empty list, so stdout stays clean for pipes.
import type { CommandContext, CommandIo } from './spec.ts';

export interface Column<T> {
  header: string;
  cell: (row: T) => string;
  align?: 'right';
}

export const printJson = (io: CommandIo, value: unknown): void => io.out(JSON.stringify(value, null, 2));

/** Pure: rows aligned in columns two spaces apart; a header row first when asked. */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], header: boolean): string[] {
  const cells = rows.map((r) => columns.map((c) => c.cell(r)));
  if (header) cells.unshift(columns.map((c) => c.header.toUpperCase()));
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells.map((row) =>
    row
      .map((cell, i) => {
        const last = i === row.length - 1;
        if (columns[i]?.align === 'right') return cell.padStart(widths[i] ?? 0);
        return last ? cell : cell.padEnd(widths[i] ?? 0);
      })
      .join('  ')
      .trimEnd(),
  );
}

/** A list: `[…]` with --json (an empty list is `[]`), else a table or the empty-state line. */
export function printList<T>(
  ctx: CommandContext,
  rows: readonly T[],
  columns: readonly Column<T>[],
  empty: string,
): void {
  if (ctx.json) printJson(ctx.io, rows);
  else if (rows.length === 0) ctx.io.err(empty);
  else for (const line of renderTable(rows, columns, ctx.io.tty === true)) ctx.io.out(line);
}

/** After a page of a longer list: how to ask for the next one (stderr, so JSON on stdout stays whole). */
export function printMore(ctx: CommandContext, nextCursor: string | null): void {
  if (nextCursor) ctx.io.err(`More: repeat with --cursor ${nextCursor}`);
}

/** One object: JSON with --json, else the lines given. */
export function printRecord(ctx: CommandContext, value: unknown, lines: () => readonly string[]): void {
  if (ctx.json) printJson(ctx.io, value);
  else for (const line of lines()) ctx.io.out(line);
}

/** One line per part of a snapshot or restore: `resources  completed`, `database  skipped: <why>`. */
export function partLines(parts: Record<string, { status: string; detail?: string } | undefined>): string[] {
  return Object.entries(parts).map(([name, p]) =>
    `  ${name.padEnd(10)} ${p?.status ?? ''}${p?.detail ? `: ${p.detail}` : ''}`.trimEnd(),
  );
}
