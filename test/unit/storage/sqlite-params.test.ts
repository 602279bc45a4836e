// The SQLite driver's rewrite of PostgreSQL-style parameters, and LIMIT/OFFSET kept as cached plans.
import { describe, expect, it } from 'vitest';
import { SqliteDriver, toSqliteParams } from '../../../api/storage/sqlite-driver.ts';

describe('toSqliteParams', () => {
  it('numbers parameters the way node:sqlite takes them', () => {
    expect(toSqliteParams('SELECT * FROM t WHERE a = $1 AND b = $12')).toBe(
      'SELECT * FROM t WHERE a = ?1 AND b = ?12',
    );
  });

  it('wraps a LIMIT or OFFSET parameter so that binding it does not re-prepare the statement', () => {
    expect(toSqliteParams('SELECT x FROM t ORDER BY x LIMIT $2 OFFSET $3')).toBe(
      'SELECT x FROM t ORDER BY x LIMIT CAST(?2 AS INTEGER) OFFSET CAST(?3 AS INTEGER)',
    );
    expect(toSqliteParams('select x from t limit\n  $1')).toBe('select x from t limit CAST(?1 AS INTEGER)');
    // Literal limits and other parameters are left alone.
    expect(toSqliteParams('SELECT x FROM t WHERE y = $1 LIMIT 1')).toBe(
      'SELECT x FROM t WHERE y = ?1 LIMIT 1',
    );
  });

  it('still pages exactly as the bound values say', async () => {
    const db = new SqliteDriver(':memory:');
    try {
      await db.query('CREATE TABLE t (x INTEGER)');
      for (let x = 1; x <= 5; x++) await db.query('INSERT INTO t (x) VALUES ($1)', [x]);
      const page = (limit: number, offset: number) =>
        db.query<{ x: number }>('SELECT x FROM t ORDER BY x LIMIT $1 OFFSET $2', [limit, offset]);
      expect((await page(2, 1)).map((r) => r.x)).toEqual([2, 3]);
      expect((await page(3, 3)).map((r) => r.x)).toEqual([4, 5]);
      expect((await page(-1, 4)).map((r) => r.x)).toEqual([5]);
    } finally {
      await db.close();
    }
  });
});
