// Recall for one small account while the memories table fills with other accounts' memories that
// share its words (the same generated corpus, so every service name is everyone's): how a multi-tenant
// store's recall grows from an empty table to 10k, 100k or 1M rows. Reported, with the empty table in
// the same run as its baseline; the issue asks for the growth, not a bound.
import { openStorage } from '../../api/app-storage.ts';
import type { MemoryRecord } from '../../api/memory/memories-repo.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { randomId } from '../../api/shared/random-id.ts';
import { addAccount } from '../support/accounts.ts';
import type { DisposableTarget } from '../support/storage-targets.ts';
import { formatRow, percentile } from './load.ts';
import { corpusAccount } from './memory-corpus.ts';

const OWN_MEMORIES = 300;
const OTHER_ACCOUNTS = 50;
const BATCH = 5000;

async function crowdRecallMs(target: DisposableTarget, crowd: number, queries: number) {
  const made = await target.create();
  const storage = await openStorage(made.target);
  try {
    const mine = await corpusAccount(storage, OWN_MEMORIES, queries);
    await storage.identity.memories.insertMany(mine.records);
    const others = await Promise.all(Array.from({ length: OTHER_ACCOUNTS }, () => addAccount(storage)));
    // Everyone else holds the same facts, over and over: the worst case for a shared index.
    for (let from = 0; from < crowd; from += BATCH) {
      const batch: MemoryRecord[] = [];
      for (let i = from; i < Math.min(crowd, from + BATCH); i++) {
        const fact = mine.records[i % mine.records.length] as MemoryRecord;
        batch.push({ ...fact, id: randomId('mem'), accountId: others[i % OTHER_ACCOUNTS] as string });
      }
      await storage.identity.memories.insertMany(batch);
    }
    const memory = new MemoryService({
      repo: storage.identity.memories,
      dialect: storage.kind,
      now: Date.now,
    });
    for (const q of mine.labelled.slice(0, 20)) await memory.recall(mine.accountId, q.query, 10);
    const ms: number[] = [];
    for (const q of mine.labelled) {
      const started = performance.now();
      await memory.recall(mine.accountId, q.query, 10);
      ms.push(performance.now() - started);
    }
    return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
  } finally {
    await storage.close();
    await made.dispose();
  }
}

/** Prints recall p50/p95 of a 300-memory account at each crowd size, against an empty table. */
export async function crowdTable(
  targets: DisposableTarget[],
  sizes: number[],
  queries: number,
): Promise<void> {
  console.log(
    `\n## Recall among other accounts (${OWN_MEMORIES} own memories, ${OTHER_ACCOUNTS} other accounts sharing every word; baseline: no other rows)\n`,
  );
  const widths = [9, 12, 11, 11, 13];
  console.log(formatRow(['store', 'other rows', 'recall p50', 'recall p95', 'p50 ÷ empty'], widths));
  for (const target of targets) {
    const empty = await crowdRecallMs(target, 0, queries);
    console.log(formatRow([target.name, 0, empty.p50.toFixed(2), empty.p95.toFixed(2), '1.0'], widths));
    for (const size of sizes) {
      const r = await crowdRecallMs(target, size, queries);
      const ratio = (r.p50 / empty.p50).toFixed(1);
      console.log(formatRow([target.name, size, r.p50.toFixed(2), r.p95.toFixed(2), ratio], widths));
    }
  }
}
