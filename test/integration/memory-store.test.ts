// The memory store and service on both databases: full-text recall, batching, isolation, forgetting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../api/app-storage.ts';
import { newAccountId } from '../../api/identity/accounts/account.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { randomId } from '../../api/shared/random-id.ts';
import { addAccount } from '../support/accounts.ts';
import { storageTargets } from '../support/storage-targets.ts';

describe.each(storageTargets)('memory store on $name', (target) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let memory: MemoryService;
  const ada = newAccountId();
  const bob = newAccountId();

  beforeAll(async () => {
    const made = await target.create();
    dispose = made.dispose;
    storage = await openStorage(made.target);
    memory = new MemoryService({ repo: storage.identity.memories, dialect: storage.kind, now: Date.now });
    for (const id of [ada, bob]) {
      await addAccount(storage, id);
    }
  });
  afterAll(async () => {
    await storage.close();
    await dispose();
  });

  it('ranks the memory sharing the rarest terms first, with stemming', async () => {
    await memory.remember(ada, 'The invoice service deploys every Thursday.', { source: 'ops' });
    await memory.remember(ada, 'Lunch is served on Thursday in the atrium.');
    await memory.remember(ada, 'The invoice template lives in the finance drive.');
    const hits = await memory.recall(ada, 'when does invoicing service deploy?', 3);
    expect(hits[0]?.content).toBe('The invoice service deploys every Thursday.');
    expect(hits[0]?.source).toBe('ops');
    expect(hits.length).toBeGreaterThan(1);
  });

  it('stores a large document in one transaction, chunked, and finds its last chunk', async () => {
    const paragraphs = Array.from({ length: 1200 }, (_, i) => `Paragraph ${i} mentions token${i} only.`);
    const stored = await memory.ingest(ada, paragraphs.join('\n\n'), { source: 'big.md' });
    expect(stored.ids.length).toBeGreaterThan(1);
    const hits = await memory.recall(ada, 'token1199', 1);
    expect(hits[0]?.documentId).toBe(stored.documentId);
    expect(hits[0]?.chunkIndex).toBe(stored.ids.length - 1);
  });

  it("keeps each account's memory to itself", async () => {
    await memory.remember(bob, 'Bob keeps his bicycle in the basement.');
    expect(await memory.recall(ada, 'bicycle basement')).toEqual([]);
    const [bobs] = await memory.recall(bob, 'bicycle');
    expect(await memory.forget(ada, { ids: [bobs?.id ?? ''] })).toEqual([]);
    expect(await memory.recall(bob, 'bicycle')).toHaveLength(1);
  });

  it('forgets by query only memories holding every term, and the index forgets them too', async () => {
    await memory.remember(ada, 'Parking permit number is 4411.');
    await memory.remember(ada, 'Parking is free on Sundays.');
    const gone = await memory.forget(ada, { query: 'parking permit' });
    expect(gone.map((m) => m.content)).toEqual(['Parking permit number is 4411.']);
    expect((await memory.recall(ada, 'parking')).map((m) => m.content)).toEqual([
      'Parking is free on Sundays.',
    ]);
    const manifest = await memory.manifest(ada);
    expect(manifest.sources.find((x) => x.source === 'big.md')?.kind).toBe('document');
  });

  it('keeps ranking by every term when a frequent term no longer widens the candidates', async () => {
    const carol = newAccountId();
    await addAccount(storage, carol);
    const fact = (content: string, i: number) => ({
      id: randomId('mem'),
      accountId: carol,
      kind: 'fact' as const,
      content,
      source: null,
      documentId: null,
      chunkIndex: 0,
      occurredAt: null,
      createdAt: i,
    });
    const records = Array.from({ length: 1100 }, (_, i) => fact(`Widget number ${i} passed inspection.`, i));
    records.push(
      fact('The zephyr widget failed inspection twice.', 2000),
      fact('Zephyr is a codename.', 2001),
    );
    await storage.identity.memories.insertMany(records);
    const hits = await memory.recall(carol, 'zephyr widget inspection', 5);
    expect(hits.map((h) => h.content)).toEqual([
      'The zephyr widget failed inspection twice.',
      'Zephyr is a codename.',
    ]);
    expect(await memory.recall(carol, 'widget', 3)).toHaveLength(3);
    // A big account is answered the long way, whether its terms are all rare or match nothing.
    const rare = await memory.recall(carol, 'zephyr codename', 5);
    expect(rare.map((h) => h.content)).toEqual([
      'Zephyr is a codename.',
      'The zephyr widget failed inspection twice.',
    ]);
    expect(await memory.recall(carol, 'quasar nebula')).toEqual([]);
    // Every path stops at the limit.
    const repo = storage.identity.memories;
    expect(await repo.search(carol, ['widget'], 7)).toHaveLength(7);
    expect(await repo.search(carol, ['widget', 'inspection'], 9)).toHaveLength(9);
    expect(await repo.search(carol, ['widget', 'inspection'], 4, 'all')).toHaveLength(4);
    expect(await repo.search(ada, ['thursday', 'invoice'], 1)).toHaveLength(1);
    expect(await repo.search(ada, ['thursday', 'invoice'], 2)).toHaveLength(2);
  });

  it('survives queries that are operators, quotes or nothing but punctuation', async () => {
    for (const q of ['"', 'NEAR(a b)', 'a OR', '*', '-', "'; DROP TABLE memories; --", '!!!']) {
      await expect(memory.recall(ada, q)).resolves.toBeInstanceOf(Array);
    }
    expect((await memory.status(ada)).fullText.healthy).toBe(true);
  });
});
