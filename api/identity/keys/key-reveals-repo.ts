// One-time reveals of new API keys: the sealed key for a few minutes, taken (deleted) when shown.
import type { SqlDriver } from '../../storage/sql-driver.ts';

export interface KeyRevealRecord {
  id: string;
  accountId: string;
  /** The key and its label, sealed; the opening key lives only in the creator's browser. */
  sealed: string;
  expiresAt: number;
}

export class KeyRevealsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Stores a reveal, and drops the ones nobody came back for. */
  async put(r: KeyRevealRecord, now: number): Promise<void> {
    await this.db.query('DELETE FROM key_reveals WHERE expires_at <= $1', [now]);
    await this.db.query(
      'INSERT INTO key_reveals (id, account_id, sealed, expires_at) VALUES ($1, $2, $3, $4)',
      [r.id, r.accountId, r.sealed, r.expiresAt],
    );
  }

  /** The account's live reveal, deleted in the same statement: only one request ever gets it. */
  async take(id: string, accountId: string, now: number): Promise<string | undefined> {
    const [row] = await this.db.query<{ sealed: string }>(
      'DELETE FROM key_reveals WHERE id = $1 AND account_id = $2 AND expires_at > $3 RETURNING sealed',
      [id, accountId, now],
    );
    return row?.sealed;
  }
}
