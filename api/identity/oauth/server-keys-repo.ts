// Keys the server generates for itself (cookie signing, token signing), shared by every replica, and
// the revocation marker every replica's credential cache watches (api/identity/credential-cache.ts).
import type { SqlDriver } from '../../storage/sql-driver.ts';

export class ServerKeysRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /**
   * Returns the stored value of `name`, storing `candidate` first when there is none. Replicas that
   * start together each propose a key; one statement picks the winner and all of them read it.
   */
  async getOrCreate(name: string, candidate: () => string, now: number): Promise<string> {
    const stored = await this.get(name);
    if (stored !== undefined) return stored;
    await this.db.query(
      'INSERT INTO server_keys (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, candidate(), now],
    );
    const value = await this.get(name);
    if (value === undefined) throw new Error(`server key ${name} vanished after it was stored`);
    return value;
  }

  /** Stores `value` under `name`, replacing what was there. */
  async put(name: string, value: string, now: number): Promise<void> {
    await this.db.query(
      `INSERT INTO server_keys (name, value, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
      [name, value, now],
    );
  }

  async get(name: string): Promise<string | undefined> {
    const [row] = await this.db.query<{ value: string }>('SELECT value FROM server_keys WHERE name = $1', [
      name,
    ]);
    return row?.value;
  }
}
