// Which accounts may operate which offices, and in what role.
import type { SqlDriver } from '../../storage/sql-driver.ts';

export const officeRoles = ['owner', 'operator'] as const;
export type OfficeRole = (typeof officeRoles)[number];

export interface OfficeMember {
  officeId: string;
  accountId: string;
  email: string;
  name: string;
  role: OfficeRole;
  createdAt: number;
}

interface MemberRow {
  office_id: string;
  account_id: string;
  email: string;
  name: string;
  role: OfficeRole;
  created_at: number;
}

const toMember = (r: MemberRow): OfficeMember => ({
  officeId: r.office_id,
  accountId: r.account_id,
  email: r.email,
  name: r.name,
  role: r.role,
  createdAt: Number(r.created_at),
});

const SELECT = `SELECT m.office_id, m.account_id, a.email, a.name, m.role, m.created_at
  FROM office_members m JOIN accounts a ON a.id = m.account_id`;

export class OfficeMembersRepo {
  private readonly db: SqlDriver;

  private readonly listeners: (() => Promise<void>)[] = [];

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Told after every membership change: verified credentials carry offices (credential-cache.ts). */
  onChange(listener: () => Promise<void>): void {
    this.listeners.push(listener);
  }

  private async changed(): Promise<void> {
    for (const listener of this.listeners) await listener();
  }

  /** Adds the member or changes their role; true when the membership is new. */
  async upsert(officeId: string, accountId: string, role: OfficeRole, now: number): Promise<boolean> {
    const created = await this.db.transaction(async (tx) => {
      const existing = await tx.query(
        'SELECT role FROM office_members WHERE office_id = $1 AND account_id = $2',
        [officeId, accountId],
      );
      await tx.query(
        `INSERT INTO office_members (office_id, account_id, role, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (office_id, account_id) DO UPDATE SET role = excluded.role`,
        [officeId, accountId, role, now],
      );
      return existing.length === 0;
    });
    await this.changed();
    return created;
  }

  async remove(officeId: string, accountId: string): Promise<boolean> {
    const rows = await this.db.query(
      'DELETE FROM office_members WHERE office_id = $1 AND account_id = $2 RETURNING account_id',
      [officeId, accountId],
    );
    if (rows.length === 1) await this.changed();
    return rows.length === 1;
  }

  async role(officeId: string, accountId: string): Promise<OfficeRole | undefined> {
    const [row] = await this.db.query<{ role: OfficeRole }>(
      'SELECT role FROM office_members WHERE office_id = $1 AND account_id = $2',
      [officeId, accountId],
    );
    return row?.role;
  }

  async ofOffice(officeId: string): Promise<OfficeMember[]> {
    const rows = await this.db.query<MemberRow>(
      `${SELECT} WHERE m.office_id = $1 ORDER BY m.created_at, a.email`,
      [officeId],
    );
    return rows.map(toMember);
  }

  async ofAccount(accountId: string): Promise<OfficeMember[]> {
    const rows = await this.db.query<MemberRow>(`${SELECT} WHERE m.account_id = $1 ORDER BY m.office_id`, [
      accountId,
    ]);
    return rows.map(toMember);
  }

  async countOwners(officeId: string): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      "SELECT COUNT(*) AS n FROM office_members WHERE office_id = $1 AND role = 'owner'",
      [officeId],
    );
    return Number(row?.n ?? 0);
  }
}
