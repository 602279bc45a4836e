// The memory (cortex) of each account: remember, ingest, recall, ask, forget, describe.
import { randomId } from '../shared/random-id.ts';
import type { Dialect } from '../storage/sql-driver.ts';
import { type Answer, extractiveAnswer } from './answer.ts';
import { type ChatModel, ChatModelError } from './chat-model.ts';
import { type ConversationMessage, chunkConversation, chunkDocument } from './chunk-text.ts';
import { bytesToVector, type Embedder, vectorToBytes } from './embedder.ts';
import { cosine, reciprocalRankFusion } from './fuse.ts';
import type { MemoriesRepo, MemoryKind, MemoryRecord } from './memories-repo.ts';
import { answerPrompt, FALLBACK_REASONS, type FallbackCause, parseModelAnswer } from './model-answer.ts';
import { queryTerms } from './query-terms.ts';

/** How many full-text candidates recall fuses before cutting to the requested number. */
const CANDIDATES = 50;
/** How many of an account's newest embedded memories the vector ranking scans per query. */
const VECTOR_SCAN = 20_000;
const FORGET_BY_QUERY_MAX = 100;

export interface StoreInput {
  source?: string | undefined;
  /** Epoch milliseconds of when the remembered thing happened. */
  occurredAt?: number | undefined;
}

export interface Stored {
  documentId: string | null;
  ids: string[];
}

export interface RecallHit {
  id: string;
  kind: MemoryKind;
  content: string;
  source: string | null;
  documentId: string | null;
  chunkIndex: number;
  occurredAt: string | null;
  createdAt: string;
  score: number;
}

/** cortex_ask's result: which path answered, and why the model's answer was not used when it was not. */
export type AskResult = Answer & {
  mode: 'model' | 'extractive';
  model?: string;
  fallback?: { reason: string };
  memories: RecallHit[];
};

export interface MemoryServiceDeps {
  repo: MemoriesRepo;
  dialect: Dialect;
  now: () => number;
  /** Present when an embeddings API is configured: recall then fuses vector similarity in. */
  embedder?: Embedder | undefined;
  /** Told when embedding fails; the memory is kept, without a vector, and recall still works. */
  onEmbeddingError?: (err: Error) => void;
  /** Present when a chat model is configured: ask then lets it write the answer from the blocks. */
  answerModel?: ChatModel | undefined;
  /** Told when the answer model fails; ask still answers, extractively. */
  onAnswerModelError?: (err: Error) => void;
}

export class MemoryService {
  private readonly repo: MemoriesRepo;
  private readonly dialect: Dialect;
  private readonly now: () => number;
  private readonly embedder: Embedder | undefined;
  private readonly onEmbeddingError: (err: Error) => void;
  private readonly answerModel: ChatModel | undefined;
  private readonly onAnswerModelError: (err: Error) => void;

  constructor(deps: MemoryServiceDeps) {
    this.repo = deps.repo;
    this.dialect = deps.dialect;
    this.now = deps.now;
    this.embedder = deps.embedder;
    this.onEmbeddingError = deps.onEmbeddingError ?? (() => {});
    this.answerModel = deps.answerModel;
    this.onAnswerModelError = deps.onAnswerModelError ?? (() => {});
  }

  /** Embeds stored memories; a failing API leaves them without vectors, never unstored. */
  private async embedStored(accountId: string, records: readonly MemoryRecord[]): Promise<void> {
    if (!this.embedder || records.length === 0) return;
    try {
      const vectors = await this.embedder.embed(records.map((r) => r.content));
      await this.repo.setEmbeddings(
        accountId,
        records.map((r, i) => ({ id: r.id, bytes: vectorToBytes(vectors[i] ?? new Float32Array()) })),
      );
    } catch (err) {
      this.onEmbeddingError(err as Error);
    }
  }

  /** Ids of the account's memories nearest the query by cosine, best first; [] without vectors. */
  private async vectorRanking(accountId: string, query: string): Promise<string[]> {
    if (!this.embedder) return [];
    let q: Float32Array | undefined;
    try {
      [q] = await this.embedder.embed([query]);
    } catch (err) {
      this.onEmbeddingError(err as Error);
      return [];
    }
    if (!q) return [];
    const query32 = q;
    const scored = (await this.repo.recentEmbeddings(accountId, VECTOR_SCAN)).map((e) => ({
      id: e.id,
      score: cosine(query32, bytesToVector(e.bytes)),
    }));
    return scored
      .sort((a, b) => b.score - a.score)
      .slice(0, CANDIDATES)
      .map((s) => s.id);
  }

  private async store(
    accountId: string,
    kind: MemoryKind,
    chunks: string[],
    input: StoreInput,
  ): Promise<Stored> {
    const documentId = kind === 'fact' ? null : randomId(kind === 'document' ? 'doc' : 'conv');
    const createdAt = this.now();
    const records: MemoryRecord[] = chunks.map((content, chunkIndex) => ({
      id: randomId('mem'),
      accountId,
      kind,
      content,
      source: input.source ?? null,
      documentId,
      chunkIndex,
      occurredAt: input.occurredAt ?? null,
      createdAt,
    }));
    await this.repo.insertMany(records);
    await this.embedStored(accountId, records);
    return { documentId, ids: records.map((r) => r.id) };
  }

  remember(accountId: string, text: string, input: StoreInput = {}): Promise<Stored> {
    return this.store(accountId, 'fact', [text.trim()], input);
  }

  ingest(accountId: string, text: string, input: StoreInput = {}): Promise<Stored> {
    return this.store(accountId, 'document', chunkDocument(text), input);
  }

  ingestConversation(
    accountId: string,
    messages: readonly ConversationMessage[],
    input: StoreInput = {},
  ): Promise<Stored> {
    return this.store(accountId, 'conversation', chunkConversation(messages), input);
  }

  /**
   * Hybrid retrieval: the full-text ranking and, with an embeddings API, the vector ranking, fused
   * by reciprocal rank; a memory found by both climbs, one found by either can appear.
   */
  async recall(accountId: string, query: string, limit = 5): Promise<RecallHit[]> {
    const search = this.repo.search(accountId, queryTerms(query), Math.max(CANDIDATES, limit));
    // Without an embeddings API there is no second ranking to wait for, nor memories only it found.
    const [fullText, vector] = this.embedder
      ? await Promise.all([search, this.vectorRanking(accountId, query)])
      : [await search, []];
    const byId = new Map<string, MemoryRecord>(fullText.map((h) => [h.memory.id, h.memory]));
    const fused = reciprocalRankFusion([fullText.map((h) => h.memory.id), vector]).slice(0, limit);
    const missing = fused.map((f) => f.id).filter((id) => !byId.has(id));
    if (missing.length > 0) for (const m of await this.repo.get(accountId, missing)) byId.set(m.id, m);
    return fused.flatMap(({ id, score }) => {
      const memory = byId.get(id);
      return memory ? [present(memory, score)] : [];
    });
  }

  /**
   * Answers from the recalled blocks: by the chat model when one is configured and it cites them,
   * else extractively, saying why the model's answer was not used. No blocks, no model call.
   */
  async ask(accountId: string, question: string, limit = 5): Promise<AskResult> {
    const memories = await this.recall(accountId, question, limit);
    const model = this.answerModel;
    if (!model || memories.length === 0) {
      return { mode: 'extractive', ...extractiveAnswer(question, memories), memories };
    }
    let cause: FallbackCause;
    try {
      const answer = parseModelAnswer(await model.complete(answerPrompt(question, memories)), memories);
      if (answer) return { mode: 'model', model: model.model, ...answer, memories };
      cause = 'uncited';
    } catch (err) {
      this.onAnswerModelError(err as Error);
      cause = err instanceof ChatModelError ? err.reason : 'failed';
    }
    const fallback = { reason: `${FALLBACK_REASONS[cause]}; this answer quotes the memories instead` };
    return { mode: 'extractive', ...extractiveAnswer(question, memories), fallback, memories };
  }

  /**
   * Forgets by id, or every memory containing all the query's terms (at most 100 at once, so a
   * vague query cannot wipe a memory); returns exactly what was deleted.
   */
  async forget(accountId: string, by: { ids?: string[] | undefined; query?: string | undefined }) {
    const ids = [...(by.ids ?? [])];
    if (by.query !== undefined) {
      const matches = await this.repo.search(accountId, queryTerms(by.query), FORGET_BY_QUERY_MAX, 'all');
      ids.push(...matches.map((m) => m.memory.id));
    }
    const deleted = await this.repo.delete(accountId, [...new Set(ids)]);
    return deleted.map((m) => present(m, 0));
  }

  async manifest(accountId: string) {
    const [total, sources] = await Promise.all([
      this.repo.count(accountId),
      this.repo.sources(accountId, 100),
    ]);
    return {
      memories: total,
      sources: sources.map((s) => ({ ...s, lastStoredAt: new Date(s.lastStoredAt).toISOString() })),
    };
  }

  async status(accountId: string) {
    const started = performance.now();
    const healthy = await this.repo.indexHealthy().catch(() => false);
    return {
      memories: await this.repo.count(accountId),
      fullText: {
        engine: this.dialect === 'postgres' ? 'PostgreSQL tsvector (GIN)' : 'SQLite FTS5 (BM25)',
        healthy,
        probeMs: Math.round((performance.now() - started) * 100) / 100,
      },
      vectors: this.embedder
        ? { enabled: true, model: this.embedder.model, embedded: await this.repo.countEmbedded(accountId) }
        : { enabled: false, reason: 'no embeddings API is configured (COLONY_EMBEDDINGS_URL)' },
      answers: this.answerModel
        ? { mode: 'model', model: this.answerModel.model }
        : { mode: 'extractive', reason: 'no answer model is configured (COLONY_ANSWER_MODEL_URL)' },
      retrieval: this.embedder
        ? 'full-text and vector rankings fused by reciprocal rank'
        : 'full-text ranking fused by reciprocal rank',
    };
  }
}

function present(m: MemoryRecord, score: number): RecallHit {
  return {
    id: m.id,
    kind: m.kind,
    content: m.content,
    source: m.source,
    documentId: m.documentId,
    chunkIndex: m.chunkIndex,
    occurredAt: m.occurredAt === null ? null : new Date(m.occurredAt).toISOString(),
    createdAt: new Date(m.createdAt).toISOString(),
    score: Math.round(score * 1e6) / 1e6,
  };
}
