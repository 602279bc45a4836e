// PostgreSQL's batched checkout creates: rows of one statement succeed or fail on their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, storageRepositories } from '../../api/app-storage.ts';
import { type ClaimedInsert, claimedInsertBatcher } from '../../api/commerce/batched-session-inserts.ts';
import { openDatabase, type StorageTarget } from '../../api/storage/open-database.ts';
import { PostgresDriver } from '../../api/storage/postgres-driver.ts';
import type { SqlDriver } from '../../api/storage/sql-driver.ts';
import { postgresTarget } from '../support/storage-targets.ts';

const now = Date.now();
const row = (id: string, key: string): ClaimedInsert => ({
  session: [id, 'acp', 'not_ready_for_payment', '{"cart":[]}', 1, now, now, now + 60_000],
  claim: { scope: 'acp:test', key, fingerprint: `fp-${key}`, now, lockMs: 30_000, ttlMs: 86_400_000 },
  response: { statusCode: 201, headers: { 'content-type': 'application/json' }, body: `{"id":"${id}"}` },
});

describe('batched checkout creates on PostgreSQL', () => {
  let driver: SqlDriver | undefined;
  let target: StorageTarget;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const made = await postgresTarget.create();
    target = made.target;
    const storage = await openDatabase(made.target, {
      migrations,
      repositories: (d) => {
        driver = d;
        return storageRepositories(d);
      },
    });
    close = async () => {
      await storage.close();
      await made.dispose();
    };
  });
  afterAll(() => close());

  const db = () => driver as SqlDriver;
  const keyRow = async (key: string) =>
    (await db().query('SELECT body FROM checkout_idempotency WHERE key = $1', [key]))[0];

  it('writes each row of a batch with its claim, and skips a row whose key is held', async () => {
    const batcher = claimedInsertBatcher(db());
    const first = batcher.submit(row('cs_b1', 'k1'));
    const rest = [row('cs_b2', 'k2'), row('cs_b3', 'k1'), row('cs_b4', 'k4')].map((r) => batcher.submit(r));
    expect(await first).toBe(true);
    expect(await Promise.all(rest)).toEqual([true, false, true]);
    const ids = await db().query<{ id: string }>(
      "SELECT id FROM checkout_sessions WHERE id LIKE 'cs_b%' ORDER BY id",
    );
    expect(ids.map((r) => r.id)).toEqual(['cs_b1', 'cs_b2', 'cs_b4']);
    expect(await keyRow('k1')).toEqual({ body: '{"id":"cs_b1"}' });
    expect(await keyRow('k4')).toEqual({ body: '{"id":"cs_b4"}' });
    // The JSON columns are stored as JSON objects, not as JSON strings holding them.
    const [stored] = await db().query(
      `SELECT s.data, k.headers, jsonb_typeof(s.data) AS data_type, jsonb_typeof(k.headers) AS headers_type
       FROM checkout_sessions s JOIN checkout_idempotency k ON k.key = 'k4' WHERE s.id = 'cs_b4'`,
    );
    expect(stored).toEqual({
      data: { cart: [] },
      headers: { 'content-type': 'application/json' },
      data_type: 'object',
      headers_type: 'object',
    });
  });

  it('fails only the row the database refuses; the rest of its batch is written', async () => {
    const batcher = claimedInsertBatcher(db());
    const first = batcher.submit(row('cs_c1', 'c1'));
    // cs_b2 exists: its primary key refuses the whole statement, which is then retried row by row.
    const settled = Promise.allSettled(
      [row('cs_c2', 'c2'), row('cs_b2', 'c3'), row('cs_c4', 'c4')].map((r) => batcher.submit(r)),
    );
    expect(await first).toBe(true);
    const outcomes = await settled;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await keyRow('c2')).toBeDefined();
    expect(await keyRow('c4')).toBeDefined();
    // The refused row left nothing behind: not its claim either, so the key can be used again.
    expect(await keyRow('c3')).toBeUndefined();
  });

  it.each([
    [true, ['checkout_create_batch']],
    [false, []],
  ])(
    'with prepared statements %s, the batch statement is prepared on the connection: %j',
    async (prepared, names) => {
      if (target.kind !== 'postgres') throw new Error('a PostgreSQL target');
      // One connection, so the statement and the look at it share a session.
      const one = new PostgresDriver({
        url: target.url,
        ...(target.schema ? { schema: target.schema } : {}),
        maxConnections: 1,
        preparedStatements: prepared,
      });
      try {
        const suffix = prepared ? 'p' : 'u';
        expect(await claimedInsertBatcher(one).submit(row(`cs_n${suffix}`, `n${suffix}`))).toBe(true);
        expect(await claimedInsertBatcher(one).submit(row(`cs_m${suffix}`, `m${suffix}`))).toBe(true);
        const statements = await one.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
        expect(statements.map((s) => s.name)).toEqual(names);
        expect(await keyRow(`m${suffix}`)).toEqual({ body: `{"id":"cs_m${suffix}"}` });
      } finally {
        await one.close();
      }
    },
  );
});
