// The usage reports of each office and period, a chain of stretches: each report starts where the
// previous one ended (unique per office, period and start), so two replicas that both see new usage
// write one report between them, and a report is retried under its identifier until the processor
// took it.
import type { SqlDriver } from '../../storage/sql-driver.ts';

export interface UsageReportRecord {
  /** Deterministic, and the processor's idempotency key: a retry is the same event. */
  identifier: string;
  officeId: string;
  accountId: string;
  /** `YYYY-MM`, UTC. */
  period: string;
  /** Thousandths of a credit reported before this report, and after it. */
  fromTotal: number;
  toTotal: number;
  createdAt: number;
  reportedAt: number | null;
}

interface Row {
  identifier: string;
  office_id: string;
  account_id: string;
  period: string;
  from_total: number | string;
  to_total: number | string;
  created_at: number | string;
  reported_at: number | string | null;
}

const toRecord = (r: Row): UsageReportRecord => ({
  identifier: r.identifier,
  officeId: r.office_id,
  accountId: r.account_id,
  period: r.period,
  fromTotal: Number(r.from_total),
  toTotal: Number(r.to_total),
  createdAt: Number(r.created_at),
  reportedAt: r.reported_at === null ? null : Number(r.reported_at),
});

/** The identifier of the stretch that starts at `fromTotal`: the same on every replica and retry. */
export const usageReportId = (officeId: string, period: string, fromTotal: number): string =>
  `colony-usage-${officeId}-${period}-${fromTotal}`;

export class UsageReportsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Thousandths of a credit already taken into reports (sent or still pending) for the period. */
  async reportedTotal(officeId: string, period: string): Promise<number> {
    const [row] = await this.db.query<{ total: number | string | null }>(
      'SELECT MAX(to_total) AS total FROM usage_reports WHERE office_id = $1 AND period = $2',
      [officeId, period],
    );
    return Number(row?.total ?? 0);
  }

  /** Adds the stretch [fromTotal, toTotal); false when another replica already added one from there. */
  async add(r: Omit<UsageReportRecord, 'identifier' | 'reportedAt'>): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO usage_reports (identifier, office_id, account_id, period, from_total, to_total, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT DO NOTHING RETURNING identifier`,
      [
        usageReportId(r.officeId, r.period, r.fromTotal),
        r.officeId,
        r.accountId,
        r.period,
        r.fromTotal,
        r.toTotal,
        r.createdAt,
      ],
    );
    return rows.length > 0;
  }

  /** Reports the processor has not confirmed yet, oldest first. */
  async pending(limit: number): Promise<UsageReportRecord[]> {
    const rows = await this.db.query<Row>(
      'SELECT * FROM usage_reports WHERE reported_at IS NULL ORDER BY created_at, identifier LIMIT $1',
      [limit],
    );
    return rows.map(toRecord);
  }

  async markReported(identifier: string, at: number): Promise<void> {
    await this.db.query(
      'UPDATE usage_reports SET reported_at = $2 WHERE identifier = $1 AND reported_at IS NULL',
      [identifier, at],
    );
  }

  /** Every report of an office, oldest first (tests and support). */
  async ofOffice(officeId: string): Promise<UsageReportRecord[]> {
    const rows = await this.db.query<Row>(
      'SELECT * FROM usage_reports WHERE office_id = $1 ORDER BY period, from_total',
      [officeId],
    );
    return rows.map(toRecord);
  }
}
