import { openStorage } from '../../api/app-storage.ts';
import { openAiEmbedder, vectorToBytes } from '../../api/memory/embedder.ts';
import { MemoryService } from '../../api/memory/memory-service.ts';
import { EMBEDDER_MODEL, startEmbedder } from '../support/embedder.ts';
import { sqliteTarget } from '../support/storage-targets.ts';
import { formatRow, percentile } from './load.ts';
import { corpusAccount, retrievalQuality } from './memory-corpus.ts';

async function embedderUrl(): Promise<{ url: string; stop: () => Promise<void> } | null> {
  if (process.env.TEST_EMBEDDINGS_URL) return { url: process.env.TEST_EMBEDDINGS_URL, stop: async () => {} };
  try {
    return await startEmbedder();
  } catch (err) {
    console.log(`(skipped: ${(err as Error).message})`);
    return null;
  }
}

async function measure(url: string, size: number, queries: number) {
  const made = await sqliteTarget.create();
  const storage = await openStorage(made.target);
  try {
    const { accountId, records, labelled } = await corpusAccount(storage, size, queries);
    const repo = storage.identity.memories;
    let started = performance.now();
    await repo.insertMany(records);
    const storeMs = performance.now() - started;
    const embedder = openAiEmbedder({ url, model: EMBEDDER_MODEL, apiKey: undefined });
    started = performance.now();
    const vectors = await embedder.embed(records.map((r) => r.content));
    const embedMs = performance.now() - started;
    await repo.setEmbeddings(
      accountId,
      records.map((r, i) => ({ id: r.id, bytes: vectorToBytes(vectors[i] ?? new Float32Array()) })),
    );
    const indexOf = new Map(records.map((r, i) => [r.id, i]));
    const answers = labelled.map((q) => q.answer);
    const common = { repo, dialect: storage.kind, now: Date.now };
    const modes = {
      'full text': new MemoryService(common),
      hybrid: new MemoryService({ ...common, embedder }),
    };
    const results = [];
    const paraphrased = labelled.flatMap((q, i) => (q.paraphrase ? [i] : []));
    for (const [mode, memory] of Object.entries(modes)) {
      const rankings: number[][] = [];
      const ms: number[] = [];
      for (const q of labelled) {
        const t = performance.now();
        const hits = await memory.recall(accountId, q.query, 10);
        ms.push(performance.now() - t);
        rankings.push(hits.map((h) => indexOf.get(h.id) ?? -1));
      }
      const subset = retrievalQuality(
        paraphrased.map((i) => rankings[i] ?? []),
        paraphrased.map((i) => answers[i] ?? -1),
        5,
      );
      results.push({
        mode,
        p50: percentile(ms, 50),
        p95: percentile(ms, 95),
        ...retrievalQuality(rankings, answers, 5),
        paraphrased: subset,
      });
    }
    return {
      results,
      storeMs,
      embedMs,
      memories: records.length,
      queries: labelled.length,
      paraphrased: paraphrased.length,
    };
  } finally {
    await storage.close();
    await made.dispose();
  }
}

export async function vectorTable(size: number, queries: number): Promise<void> {
  console.log(
    `\n## Memory: full text vs hybrid (${EMBEDDER_MODEL} via the test embedder, SQLite; baseline: full text)\n`,
  );
  const embedder = await embedderUrl();
  if (!embedder) return;
  try {
    const r = await measure(embedder.url, size, queries);
    const widths = [10, 9, 7, 14, 11, 11];
    console.log(`${r.memories} memories, ${r.queries} labelled queries (${r.paraphrased} paraphrased)\n`);
    console.log(formatRow(['mode', 'recall@5', 'MRR', 'paraphrase MRR', 'recall p50', 'recall p95'], widths));
    for (const m of r.results) {
      const row = [m.mode, m.recallAtK.toFixed(3), m.mrr.toFixed(3), m.paraphrased.mrr.toFixed(3)];
      console.log(formatRow([...row, m.p50.toFixed(2), m.p95.toFixed(2)], widths));
    }
    const [fts, hybrid] = r.results;
    if (fts && hybrid) {
      const ratio = (a: number, b: number, digits = 2) => (a / b).toFixed(digits);
      console.log(
        `ratio hybrid/full text: recall@5 ${ratio(hybrid.recallAtK, fts.recallAtK)}, MRR ${ratio(hybrid.mrr, fts.mrr)}, ` +
          `paraphrase MRR ${ratio(hybrid.paraphrased.mrr, fts.paraphrased.mrr)}, recall p50 ${ratio(hybrid.p50, fts.p50, 1)}`,
      );
    }
    const embedPer = r.embedMs / r.memories;
    const storePer = r.storeMs / r.memories;
    console.log(
      `embedding cost: ${embedPer.toFixed(2)} ms per memory (numpy on CPU) vs ${storePer.toFixed(3)} ms to store it with its full-text index: ratio ${(embedPer / storePer).toFixed(0)}`,
    );
  } finally {
    await embedder.stop();
  }
}
