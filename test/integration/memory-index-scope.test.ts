// SQLite's full-text index scoped by account (migration 205): a database written before it upgrades
// with every memory still findable and forgettable, and a search walks only its own account.
// PostgreSQL's half of the migration is empty (it filters by account before ranking), so this is
// SQLite's alone.
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, openStorage, type Storage } from '../../api/app-storage.ts';
import { newAccountId } from '../../api/identity/accounts/account.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { migrate } from '../../api/storage/migration-runner.ts';
import { SqliteDriver } from '../../api/storage/sqlite-driver.ts';
import { addAccount } from '../support/accounts.ts';
import { sqliteTarget } from '../support/storage-targets.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sqliteFile(): Promise<string> {
  const made = await sqliteTarget.create();
  cleanups.push(made.dispose);
  if (made.target.kind !== 'sqlite') throw new Error('expected a SQLite target');
  return made.target.file;
}

async function open(file: string): Promise<{ storage: Storage; memory: MemoryService }> {
  const storage = await openStorage({ kind: 'sqlite', file });
  cleanups.push(() => storage.close());
  const memory = new MemoryService({ repo: storage.identity.memories, dialect: 'sqlite', now: Date.now });
  return { storage, memory };
}

describe('the account-scoped full-text index on SQLite', () => {
  it('upgrades a database written before it: old memories are found, and forgotten from the index', async () => {
    const file = await sqliteFile();
    const ada = newAccountId();
    // The schema and rows as they were before migration 205, written the way the old code wrote them.
    const old = new SqliteDriver(file);
    await migrate(
      old,
      migrations.filter((m) => m.id !== 205),
    );
    await old.query(
      `INSERT INTO accounts (id, email, name, password_hash, created_at, updated_at) VALUES ($1, $2, $3, 'x', 1, 1)`,
      [ada, `${ada}@example.com`, ada],
    );
    for (const [i, text] of ['The bench deploys on Fridays.', 'Lunch is at noon.'].entries()) {
      const [row] = await old.query<{ seq: number }>(
        `INSERT INTO memories (id, account_id, kind, content, created_at) VALUES ($1, $2, 'fact', $3, $4) RETURNING seq`,
        [`mem_old${i}`, ada, text, i + 1],
      );
      await old.query('INSERT INTO memories_fts (rowid, content, source) VALUES ($1, $2, $3)', [
        Number(row?.seq),
        text,
        '',
      ]);
    }
    await old.close();

    const { storage, memory } = await open(file);
    const hits = await memory.recall(ada, 'when does the bench deploy');
    expect(hits.map((h) => h.id)).toEqual(['mem_old0']);
    expect(await storage.identity.memories.delete(ada, ['mem_old0'])).toHaveLength(1);
    expect(await memory.recall(ada, 'bench deploy')).toEqual([]);
    // FTS5's own check: the index holds exactly what the table says, owner tokens included.
    const driver = new SqliteDriver(file);
    cleanups.push(() => driver.close());
    await expect(
      driver.query(`INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)`),
    ).resolves.toEqual([]);
  });

  it("finds one account's memories however many of another's share the terms", async () => {
    const { storage, memory } = await open(await sqliteFile());
    const [ada, bob] = [newAccountId(), newAccountId()];
    for (const id of [ada, bob]) await addAccount(storage, id);
    await memory.remember(ada, 'The bench deploys on Fridays.');
    // Bob's memories name the terms, and even Ada's index token: none of them is Ada's.
    const adaToken = `own${ada.replaceAll('_', '')}0`;
    await memory.ingest(
      bob,
      Array.from({ length: 1200 }, (_, i) => `bench deploy ${i} ${adaToken}.`).join('\n\n'),
      { source: 'deploy.log' },
    );
    const hits = await memory.recall(ada, `bench deploy ${adaToken}`, 10);
    expect(hits.map((h) => h.content)).toEqual(['The bench deploys on Fridays.']);
    expect(await memory.recall(ada, adaToken)).toEqual([]);
  });
});
