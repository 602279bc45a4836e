// Accounts and their browser sessions. Emails are stored normalised (lower case), so they are unique.
import type { SqlDriver } from '../../storage/sql-driver.ts';

export interface AccountRecord {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  createdAt: number;
  updatedAt: number;
}

export interface SessionRecord {
  /** SHA-256 of the cookie's secret: a copy of the database opens no browser session. */
  id: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
}

interface AccountRow {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  created_at: number;
  updated_at: number;
}

const toAccount = (r: AccountRow): AccountRecord => ({
  id: r.id,
  email: r.email,
  name: r.name,
  passwordHash: r.password_hash,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const ACCOUNT_COLUMNS = 'a.id, a.email, a.name, a.password_hash, a.created_at, a.updated_at';

export class AccountsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Inserts the account; false when the email is taken (one statement decides concurrent sign-ups). */
  async create(a: AccountRecord): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO accounts (id, email, name, password_hash, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email) DO NOTHING RETURNING id`,
      [a.id, a.email, a.name, a.passwordHash, a.createdAt, a.updatedAt],
    );
    return rows.length === 1;
  }

  async get(id: string): Promise<AccountRecord | undefined> {
    const [row] = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = $1`,
      [id],
    );
    return row ? toAccount(row) : undefined;
  }

  async byEmail(email: string): Promise<AccountRecord | undefined> {
    const [row] = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.email = $1`,
      [email],
    );
    return row ? toAccount(row) : undefined;
  }

  async updatePasswordHash(id: string, passwordHash: string, now: number): Promise<void> {
    await this.db.query('UPDATE accounts SET password_hash = $2, updated_at = $3 WHERE id = $1', [
      id,
      passwordHash,
      now,
    ]);
  }

  async createSession(s: SessionRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO account_sessions (id, account_id, created_at, expires_at, last_seen_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [s.id, s.accountId, s.createdAt, s.expiresAt, s.lastSeenAt],
    );
  }

  /** The live session with its account in one round trip; expired sessions are not returned. */
  async sessionWithAccount(
    sessionId: string,
    now: number,
  ): Promise<{ session: SessionRecord; account: AccountRecord } | undefined> {
    const [row] = await this.db.query<
      AccountRow & { s_created_at: number; expires_at: number; last_seen_at: number }
    >(
      `SELECT ${ACCOUNT_COLUMNS}, s.created_at AS s_created_at, s.expires_at, s.last_seen_at
       FROM account_sessions s JOIN accounts a ON a.id = s.account_id
       WHERE s.id = $1 AND s.expires_at > $2`,
      [sessionId, now],
    );
    if (!row) return undefined;
    return {
      account: toAccount(row),
      session: {
        id: sessionId,
        accountId: row.id,
        createdAt: Number(row.s_created_at),
        expiresAt: Number(row.expires_at),
        lastSeenAt: Number(row.last_seen_at),
      },
    };
  }

  async extendSession(sessionId: string, expiresAt: number, now: number): Promise<void> {
    await this.db.query('UPDATE account_sessions SET expires_at = $2, last_seen_at = $3 WHERE id = $1', [
      sessionId,
      expiresAt,
      now,
    ]);
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.db.query('DELETE FROM account_sessions WHERE id = $1', [sessionId]);
  }

  /** Ends every session of an account (after a password change, for instance). */
  async deleteSessionsOf(accountId: string): Promise<number> {
    const rows = await this.db.query('DELETE FROM account_sessions WHERE account_id = $1 RETURNING id', [
      accountId,
    ]);
    return rows.length;
  }

  async purgeExpiredSessions(now: number): Promise<number> {
    const rows = await this.db.query('DELETE FROM account_sessions WHERE expires_at <= $1 RETURNING id', [
      now,
    ]);
    return rows.length;
  }
}
