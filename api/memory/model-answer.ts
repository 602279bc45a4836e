// Pure: the prompt that asks a chat model to answer from numbered memory blocks, and the reading of
// its [n] citations back to those blocks.
import { type Answer, type Citation, citationOf, type MemoryBlock } from './answer.ts';
import type { ChatMessage, ChatModelError } from './chat-model.ts';

/** Longest block text sent to the model; a 20,000-character fact would crowd out the others. */
const BLOCK_CHARS = 4000;

const INSTRUCTIONS = [
  "You answer the user's question using only the numbered memory blocks below, which are the user's own notes.",
  'After every statement, cite the blocks it comes from as [n], using their numbers (for example [1] or [2][3]).',
  'Do not use outside knowledge. If the blocks do not answer the question, say so in one sentence and cite nothing.',
  'Answer in at most five sentences, in the language of the question.',
].join(' ');

function blockHeader(block: MemoryBlock, n: number): string {
  const about = [
    block.source ? `source: ${block.source}` : null,
    block.occurredAt ? `when: ${block.occurredAt}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return about ? `[${n}] (${about})` : `[${n}]`;
}

export function answerPrompt(question: string, blocks: readonly MemoryBlock[]): ChatMessage[] {
  const numbered = blocks.map((b, i) => `${blockHeader(b, i + 1)}\n${b.content.slice(0, BLOCK_CHARS)}`);
  return [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: `Memory blocks:\n\n${numbered.join('\n\n')}\n\nQuestion: ${question}` },
  ];
}

// "[2]", "[1, 3]", "[1,2]": one bracket may cite several blocks.
const CITATION = /\s?\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;

/**
 * The model's reply with its citations renumbered 1, 2, … in order of first use and mapped to the
 * blocks; a number naming no block is dropped from the text. Null when nothing valid is cited: an
 * answer that cites no memory is not an answer from memory.
 */
export function parseModelAnswer(reply: string, blocks: readonly MemoryBlock[]): Answer | null {
  const citations: Citation[] = [];
  const renumber = (sent: number): number | null => {
    const block = blocks[sent - 1];
    if (!block) return null;
    const known = citations.find((c) => c.id === block.id);
    if (known) return known.n;
    const cited = citationOf(block, citations.length + 1);
    citations.push(cited);
    return cited.n;
  };
  const answer = reply
    .replace(CITATION, (whole, list: string) => {
      const numbers = list.split(',').map((s) => renumber(Number(s.trim())));
      const kept = [...new Set(numbers.filter((n): n is number => n !== null))];
      const space = whole.startsWith('[') ? '' : whole[0];
      return kept.length === 0 ? '' : `${space}${kept.map((n) => `[${n}]`).join('')}`;
    })
    .trim();
  return citations.length === 0 || answer === '' ? null : { answer, citations };
}

export type FallbackCause = ChatModelError['reason'] | 'uncited' | 'failed';

/** What the result tells the user when the extractive answer stood in for the model's. */
export const FALLBACK_REASONS: Record<FallbackCause, string> = {
  timeout: 'the answer model did not answer in time',
  unreachable: 'the answer model could not be reached',
  status: 'the answer model answered with an error',
  malformed: "the answer model's reply was malformed",
  truncated: "the answer model's reply was cut short",
  resting: 'the answer model failed repeatedly and is skipped for a minute',
  uncited: 'the answer model cited none of the memories',
  failed: 'the answer model failed',
};
