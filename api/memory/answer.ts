// Pure: an extractive answer to a question, built only from cited memory blocks.
import { sentences } from './chunk-text.ts';
import { queryTerms } from './query-terms.ts';

export interface MemoryBlock {
  id: string;
  content: string;
  source: string | null;
  /** ISO 8601 times, carried into the citation when the block has them. */
  occurredAt?: string | null;
  createdAt?: string | null;
}

export interface Citation {
  /** The number the answer cites as [n]. */
  n: number;
  id: string;
  source: string | null;
  occurredAt: string | null;
  createdAt: string | null;
  excerpt: string;
}

export interface Answer {
  answer: string;
  citations: Citation[];
}

const MAX_SENTENCES = 3;

export function citationOf(block: MemoryBlock, n: number): Citation {
  return {
    n,
    id: block.id,
    source: block.source,
    occurredAt: block.occurredAt ?? null,
    createdAt: block.createdAt ?? null,
    excerpt: block.content.slice(0, 280),
  };
}
export const NOTHING_FOUND = 'Nothing in your memory answers this.';

// "deploy" should meet "deploys" and "deployment": a shared stem of at least four letters counts.
const sameWord = (term: string, word: string) =>
  term === word || (term.length >= 4 && word.length >= 4 && (word.startsWith(term) || term.startsWith(word)));

function overlap(terms: readonly string[], sentence: string): number {
  const words = sentence.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return terms.filter((t) => words.some((w) => sameWord(t, w))).length;
}

/**
 * The sentences sharing the most terms with the question, blocks in retrieval order breaking ties,
 * each followed by the number of the block it came from; only blocks actually quoted are cited.
 */
export function extractiveAnswer(question: string, blocks: readonly MemoryBlock[]): Answer {
  const terms = queryTerms(question);
  const candidates = blocks.flatMap((block, blockRank) =>
    sentences(block.content).map((text, position) => ({
      block,
      blockRank,
      position,
      text,
      score: overlap(terms, text),
    })),
  );
  const picked = candidates
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.blockRank - b.blockRank || a.position - b.position)
    .slice(0, MAX_SENTENCES);
  if (picked.length === 0) return { answer: NOTHING_FOUND, citations: [] };
  const citations: Citation[] = [];
  const numberOf = (block: MemoryBlock) => {
    const known = citations.find((c) => c.id === block.id);
    if (known) return known.n;
    const cited = citationOf(block, citations.length + 1);
    citations.push(cited);
    return cited.n;
  };
  const answer = picked.map((c) => `${c.text} [${numberOf(c.block)}]`).join(' ');
  return { answer, citations };
}
