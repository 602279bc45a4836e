// Fixed-window counters in the database, so every replica shares one budget per client.
import type { SqlDriver } from '../../storage/sql-driver.ts';

// Adds to a key's counter, starting it over when the stored window is another one.
const UPSERT = `INSERT INTO rate_limit_counters (key, window_start, count, expires_at) VALUES ($1, $2, $3, $4)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN rate_limit_counters.window_start = excluded.window_start
                 THEN rate_limit_counters.count + excluded.count ELSE excluded.count END,
    window_start = excluded.window_start,
    expires_at = excluded.expires_at`;

export class RateLimitCountersRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Adds `cost` to the key's counter for the window starting at `windowStart`; returns the new count. */
  async hit(key: string, windowStart: number, cost: number, expiresAt: number): Promise<number> {
    const [row] = await this.db.query<{ count: number }>(`${UPSERT} RETURNING count`, [
      key,
      windowStart,
      cost,
      expiresAt,
    ]);
    return Number(row?.count ?? cost);
  }

  /** A round trip to the counters table (the status probe of this store). */
  async ping(): Promise<void> {
    await this.db.query('SELECT 1 FROM rate_limit_counters LIMIT 1');
  }

  /**
   * Sliding window, in one statement: adds `cost` to `current`'s counter and reads `previous`'s, counted
   * only while it still holds the window it names.
   */
  async hitPair(
    current: { key: string; windowStart: number },
    previous: { key: string; windowStart: number },
    cost: number,
    expiresAt: number,
  ): Promise<{ current: number; previous: number }> {
    const [row] = await this.db.query<{ count: number; previous: number | null }>(
      `${UPSERT} RETURNING count, (SELECT p.count FROM rate_limit_counters p
         WHERE p.key = $5 AND p.window_start = $6) AS previous`,
      [current.key, current.windowStart, cost, expiresAt, previous.key, previous.windowStart],
    );
    return { current: Number(row?.count ?? cost), previous: Number(row?.previous ?? 0) };
  }

  /** Drops counters whose window is over; called by a periodic sweep. */
  async purgeExpired(now: number): Promise<number> {
    const rows = await this.db.query('DELETE FROM rate_limit_counters WHERE expires_at < $1 RETURNING key', [
      now,
    ]);
    return rows.length;
  }
}
