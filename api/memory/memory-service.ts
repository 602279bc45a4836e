// The memory (cortex) of each account: remember, ingest, recall, ask, forget, describe.
import { randomId } from '../identity/accounts/account.ts';
import type { MemoriesRepo, MemoryKind, MemoryRecord, ScoredMemory } from '../storage/memories-repo.ts';
import type { Dialect } from '../storage/sql-driver.ts';
import { type Answer, extractiveAnswer } from './answer.ts';
import { type ConversationMessage, chunkConversation, chunkDocument } from './chunk-text.ts';
import { reciprocalRankFusion } from './fuse.ts';
import { queryTerms } from './query-terms.ts';

/** How many full-text candidates recall fuses before cutting to the requested number. */
const CANDIDATES = 50;
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

export interface MemoryServiceDeps {
  repo: MemoriesRepo;
  dialect: Dialect;
  now: () => number;
}

export class MemoryService {
  private readonly repo: MemoriesRepo;
  private readonly dialect: Dialect;
  private readonly now: () => number;

  constructor(deps: MemoryServiceDeps) {
    this.repo = deps.repo;
    this.dialect = deps.dialect;
    this.now = deps.now;
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
   * Hybrid retrieval: every ranking available (today the full-text one) is fused by reciprocal
   * rank, so adding the vector ranking changes the inputs of the fusion, not its callers.
   */
  async recall(accountId: string, query: string, limit = 5): Promise<RecallHit[]> {
    const terms = queryTerms(query);
    const fullText = await this.repo.search(accountId, terms, Math.max(CANDIDATES, limit));
    const byId = new Map<string, ScoredMemory>(fullText.map((h) => [h.memory.id, h]));
    const fused = reciprocalRankFusion([fullText.map((h) => h.memory.id)]);
    return fused.slice(0, limit).flatMap(({ id, score }) => {
      const hit = byId.get(id);
      return hit ? [present(hit.memory, score)] : [];
    });
  }

  async ask(accountId: string, question: string, limit = 5): Promise<Answer & { memories: RecallHit[] }> {
    const memories = await this.recall(accountId, question, limit);
    return { ...extractiveAnswer(question, memories), memories };
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
      vectors: { enabled: false, reason: 'no embedding endpoint is configured' },
      retrieval: 'full-text ranking fused by reciprocal rank',
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
