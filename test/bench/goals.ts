// A benchmark's verdicts: each figure is compared with its goal here, so no bench can report
// "met" without a measured value that meets it.
export type Direction = 'at least' | 'at most';

export interface GoalRow {
  figure: string;
  measured: number;
  goal: number;
  direction: Direction;
  /** How the two numbers read, e.g. "× bare route" or "ms". */
  unit: string;
  met: boolean;
}

export type BenchOutcome = GoalRow[] | 'skipped';

export function atLeast(figure: string, measured: number, goal: number, unit: string): GoalRow {
  return { figure, measured, goal, direction: 'at least', unit, met: measured >= goal };
}

export function atMost(figure: string, measured: number, goal: number, unit: string): GoalRow {
  return { figure, measured, goal, direction: 'at most', unit, met: measured <= goal };
}

const shown = (n: number) =>
  Number.isInteger(n) ? String(n) : Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(n < 1 ? 3 : 2);

/** The summary table: one line per figure, with the goal and whether it is met. */
export function summaryTable(outcomes: Record<string, BenchOutcome>): string {
  const lines = ['| bench | figure | measured | goal | met |', '|---|---|---|---|---|'];
  for (const [bench, outcome] of Object.entries(outcomes)) {
    if (outcome === 'skipped') {
      lines.push(`| ${bench} | (skipped) | | | |`);
      continue;
    }
    if (outcome.length === 0) lines.push(`| ${bench} | (no figures) | | | no |`);
    for (const row of outcome)
      lines.push(
        `| ${bench} | ${row.figure} | ${shown(row.measured)} ${row.unit} | ${row.direction} ${shown(row.goal)} | ${row.met ? 'met' : 'NOT met'} |`,
      );
  }
  return lines.join('\n');
}

export function allMet(outcomes: Record<string, BenchOutcome>): boolean {
  return Object.values(outcomes).every((o) => o === 'skipped' || (o.length > 0 && o.every((row) => row.met)));
}
