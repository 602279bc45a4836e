// A storage driver wrapper for measuring what background work asks of the database.
import { type SqlDriver, type Statement, statementText } from '../../api/storage/sql-driver.ts';

/** A driver that tallies the statements it runs by their first words. */
export function counting(driver: SqlDriver, tally: Map<string, number>): SqlDriver {
  const count = (sql: Statement) => {
    const head = statementText(sql).trim().split(/\s+/).slice(0, 3).join(' ');
    tally.set(head, (tally.get(head) ?? 0) + 1);
  };
  return {
    dialect: driver.dialect,
    query: (sql, params) => {
      count(sql);
      return driver.query(sql, params);
    },
    transaction: (fn) =>
      driver.transaction((tx) =>
        fn({
          dialect: tx.dialect,
          query: (sql, params) => {
            count(sql);
            return tx.query(sql, params);
          },
        }),
      ),
    close: () => driver.close(),
  };
}
