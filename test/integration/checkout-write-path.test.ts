// What one checkout create with an Idempotency-Key costs the database: one commit (PostgreSQL: one
// statement, one round trip), the key's claim riding in the write that stores the session and its answer;
// on PostgreSQL, concurrent creates share that statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, type Storage, storageRepositories } from '../../api/app-storage.ts';
import { openDatabase } from '../../api/storage/open-database.ts';
import { type SqlDriver, statementText } from '../../api/storage/sql-driver.ts';
import { planLine } from '../support/checkout.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type DisposableTarget, storageTargets } from '../support/storage-targets.ts';

/** A driver that records each unit of work it is asked for: a lone statement or a transaction. */
function recording(driver: SqlDriver, units: string[]): SqlDriver {
  return {
    dialect: driver.dialect,
    query: (sql, params) => {
      units.push(`statement: ${statementText(sql).trim().split(/\s+/).slice(0, 3).join(' ')}`);
      return driver.query(sql, params);
    },
    transaction: (fn) => {
      units.push('transaction');
      return driver.transaction(fn);
    },
    close: () => driver.close(),
  };
}

/** A test server on `t` whose database records its units of work in `units`, for the describe block. */
function useRecordedServer(
  t: DisposableTarget,
  units: string[],
  opened: (o: { s: TestServer; storage: Storage }) => void,
): void {
  let close: () => Promise<void>;
  beforeAll(async () => {
    const made = await t.create();
    const storage = await openDatabase(made.target, {
      migrations,
      repositories: (d) => storageRepositories(recording(d, units)),
    });
    const s = await startTestServer({ COLONY_CHECKOUT_RATE_LIMIT: '10000' }, { storage, runJobs: false });
    opened({ s, storage });
    close = async () => {
      await s.close();
      await storage.close();
      await made.dispose();
    };
  });
  afterAll(() => close());
}

describe.each(storageTargets)('a checkout create on $name', (t) => {
  const units: string[] = [];
  let s: TestServer;
  useRecordedServer(t, units, (opened) => {
    ({ s } = opened);
  });

  const create = (key: string, line = planLine()) =>
    s.app.inject({
      method: 'POST',
      url: '/checkout_sessions',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      payload: { line_items: [line] },
    });

  it('writes the key, the session and its answer in one unit of work', async () => {
    units.length = 0;
    const res = await create('one-unit');
    expect(res.statusCode).toBe(201);
    expect(units).toEqual([t.name === 'postgres' ? 'statement: WITH v AS' : 'transaction']);
  });

  it('still replays a repeat and refuses a different body under the same key', async () => {
    const first = await create('repeat');
    const again = await create('repeat');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const other = await create('repeat', { item: { id: 'addon_backups' } });
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('idempotency_conflict');
  });
});

describe.each(storageTargets)('concurrent checkout creates on $name', (t) => {
  const units: string[] = [];
  let s: TestServer;
  let storage: Storage;
  useRecordedServer(t, units, (opened) => {
    ({ s, storage } = opened);
  });

  const create = (key: string) =>
    s.app.inject({
      method: 'POST',
      url: '/checkout_sessions',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      payload: { line_items: [planLine()] },
    });

  it('writes every session of a burst with distinct keys, each answer its own', async () => {
    units.length = 0;
    const before = await storage.checkoutSessions.count();
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => create(`burst-${i}`)));
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 201));
    const ids = answers.map((a) => a.json().id as string);
    expect(new Set(ids).size).toBe(24);
    expect(await storage.checkoutSessions.count()).toBe(before + 24);
    for (const id of ids) expect((await storage.checkoutSessions.get(id))?.id).toBe(id);
    if (t.name === 'postgres') {
      // The first create goes out alone; the others gather behind it.
      const statements = units.filter((u) => u === 'statement: WITH v AS').length;
      expect(statements).toBeGreaterThan(0);
      expect(statements).toBeLessThan(24);
    }
    // Each key replays its own session.
    const replays = await Promise.all(ids.map((_, i) => create(`burst-${i}`)));
    expect(replays.map((r) => r.json().id)).toEqual(ids);
  });

  it('runs at most 12 checkout writes at once on SQLite (none held on PostgreSQL) and answers them all', async () => {
    const gate = s.app.colony.commerce.writes;
    if (t.name === 'postgres') {
      expect(gate).toBeUndefined();
      return;
    }
    if (!gate) throw new Error('SQLite checkout writes pass an admission gate');
    let most = 0;
    let queued = 0;
    const sample = setInterval(() => {
      most = Math.max(most, gate.running);
      queued = Math.max(queued, gate.queued);
    }, 1);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => create(`gate-${i}`)));
    clearInterval(sample);
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 201));
    expect(most).toBeLessThanOrEqual(12);
    expect(queued).toBeGreaterThan(0);
    expect([gate.running, gate.queued]).toEqual([0, 0]);
  });

  it('creates one session for a burst that shares one key, and replays it to the rest', async () => {
    const before = await storage.checkoutSessions.count();
    const answers = await Promise.all(Array.from({ length: 8 }, () => create('shared-key')));
    expect(await storage.checkoutSessions.count()).toBe(before + 1);
    const created = answers.filter((a) => a.statusCode === 201 && !a.headers['idempotent-replayed']);
    expect(created).toHaveLength(1);
    const id = created[0]?.json().id;
    // The rest replay it, or (SQLite, while the first still runs) are told it is in flight.
    for (const a of answers) {
      if (a.statusCode === 201) expect(a.json().id).toBe(id);
      else expect(a.statusCode).toBe(409);
    }
  });
});
