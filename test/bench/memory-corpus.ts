// A labelled retrieval corpus, generated from a seed: three facts per invented service name, and
// questions (literal and paraphrased) whose one right answer is known.
import type { Storage } from '../../api/app-storage.ts';
import type { MemoryRecord } from '../../api/memory/memories-repo.ts';
import { randomId } from '../../api/shared/random-id.ts';
import { addAccount } from '../support/accounts.ts';

const SYLLABLES = 'ka lo mi ren tu vex sa dor qui bel nam zo pha lu tec wyn gar os fi mel'.split(' ');
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const TEAMS = ['platform', 'billing', 'growth', 'search', 'identity', 'storage'];
const PEOPLE = ['Ada', 'Grace', 'Linus', 'Barbara', 'Ken', 'Margaret', 'Dennis', 'Frances'];
const REGIONS = ['Frankfurt', 'Dublin', 'Oregon', 'Tokyo', 'Sydney'];

/** mulberry32: a tiny seeded PRNG, so every run benchmarks the same corpus. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface LabelledQuery {
  query: string;
  /** Index into `facts` of the one memory that answers it. */
  answer: number;
  /** Shares no content word with its answer but the service name. */
  paraphrase: boolean;
}

export function memoryCorpus(memories: number, queries: number, seed = 7) {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const names = new Set<string>();
  while (names.size < Math.ceil(memories / 3)) {
    const n = 2 + Math.floor(rand() * 3);
    names.add(Array.from({ length: n }, () => pick(SYLLABLES)).join(''));
  }
  const facts: string[] = [];
  const questions: LabelledQuery[][] = [];
  for (const name of names) {
    const base = facts.length;
    facts.push(
      `The ${name} service deploys every ${pick(DAYS)} from the ${pick(REGIONS)} region.`,
      `${name} is owned by ${pick(PEOPLE)} on the ${pick(TEAMS)} team.`,
      `The nightly ${name} database backup starts at ${Math.floor(rand() * 24)}:00 UTC.`,
    );
    // Half the questions share a content word with their answer; the other half are paraphrases
    // that share only the name, which full-text ranking alone cannot tell apart.
    questions.push([
      { query: `when is ${name} deployed?`, answer: base, paraphrase: false },
      { query: `which team owns ${name}`, answer: base + 1, paraphrase: false },
      { query: `what time does the ${name} backup run`, answer: base + 2, paraphrase: false },
      { query: `what day does ${name} ship to production`, answer: base, paraphrase: true },
      { query: `who is responsible for ${name}`, answer: base + 1, paraphrase: true },
      { query: `when is ${name} copied for safekeeping`, answer: base + 2, paraphrase: true },
    ]);
  }
  const labelled: LabelledQuery[] = [];
  for (let i = 0; i < queries; i++) labelled.push(pick(pick(questions)));
  return { facts: facts.slice(0, memories), queries: labelled.filter((q) => q.answer < memories) };
}

/** recall@k and mean reciprocal rank (a miss in the ranking counts 0). */
export function retrievalQuality(rankings: readonly number[][], answers: readonly number[], k: number) {
  let hits = 0;
  let rr = 0;
  rankings.forEach((ranking, i) => {
    const at = ranking.indexOf(answers[i] ?? -1);
    if (at >= 0 && at < k) hits++;
    if (at >= 0) rr += 1 / (at + 1);
  });
  return { recallAtK: hits / rankings.length, mrr: rr / rankings.length };
}

/** A new account on `storage` and the corpus as its memory records (not yet stored). */
export async function corpusAccount(storage: Storage, memories: number, queries: number) {
  const accountId = await addAccount(storage);
  const { facts, queries: labelled } = memoryCorpus(memories, queries);
  const records: MemoryRecord[] = facts.map((content, i) => ({
    id: randomId('mem'),
    accountId,
    kind: 'fact',
    content,
    source: null,
    documentId: null,
    chunkIndex: 0,
    occurredAt: null,
    createdAt: i,
  }));
  return { accountId, records, labelled };
}
