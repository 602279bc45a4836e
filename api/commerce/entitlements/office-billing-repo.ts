// Which account pays for each self-serve office: the plan it counts against. Offices a cluster admin
// created have no row: they are operator-managed and outside plans.
import type { SqlDriver } from '../../storage/sql-driver.ts';

export class OfficeBillingRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** The office's billing account, or undefined for an operator-managed office. */
  async accountOf(officeId: string): Promise<string | undefined> {
    const [row] = await this.db.query<{ account_id: string }>(
      'SELECT account_id FROM office_billing WHERE office_id = $1',
      [officeId],
    );
    return row?.account_id;
  }

  /** The offices an account pays for, oldest first. */
  async officesOf(accountId: string): Promise<string[]> {
    const rows = await this.db.query<{ office_id: string }>(
      'SELECT office_id FROM office_billing WHERE account_id = $1 ORDER BY created_at, office_id',
      [accountId],
    );
    return rows.map((r) => r.office_id);
  }

  /** Records the account that created the office; an office already billed keeps its first account. */
  async record(officeId: string, accountId: string, now: number): Promise<void> {
    await this.db.query(
      `INSERT INTO office_billing (office_id, account_id, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (office_id) DO NOTHING`,
      [officeId, accountId, now],
    );
  }

  async forget(officeId: string): Promise<void> {
    await this.db.query('DELETE FROM office_billing WHERE office_id = $1', [officeId]);
  }
}
